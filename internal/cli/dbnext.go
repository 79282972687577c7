package cli

import "net/url"

// dsnWithoutPassword is a postgres:// DSN as `db create` prints it for the
// next command: the password, if any, replaced by PASSWORD, so it is not
// echoed to a terminal or a log. A DSN that does not parse as a URL is
// shown as "DSN".
func dsnWithoutPassword(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "DSN"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "PASSWORD")
	}
	return u.String()
}
