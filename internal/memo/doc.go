// Package memo runs a computation once per key and remembers only the
// outcomes worth remembering: a database that was down, a statement cut
// short by a caller's deadline, must be tried again by the next caller,
// while a success is shared by every later one.
package memo
