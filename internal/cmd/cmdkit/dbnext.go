package cmdkit

import "net/url"

// DSNWithoutPassword is a postgres:// DSN as `db create` prints it for the
// next command: the password, if any, replaced by PASSWORD, so it is not
// echoed to a terminal or a log. A DSN that does not parse as a URL is
// shown as "DSN".
func DSNWithoutPassword(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "DSN"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "PASSWORD")
	}
	return u.String()
}

// MysqlURLFor is the mysql:// URL of database db on the server of dsn,
// without the administrator's password: the reader's account goes there.
func MysqlURLFor(dsn, db string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "mysql://USER:PASS@HOST:3306/" + db
	}
	u.User = url.UserPassword("READER", "PASSWORD")
	u.Path = "/" + db
	return u.String()
}
