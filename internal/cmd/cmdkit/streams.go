package cmdkit

import (
	"io"
	"os"
)

// IO is a command's standard streams.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StdIO is the process's own streams.
func StdIO() IO { return IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }
