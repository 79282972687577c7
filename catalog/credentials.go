package catalog

import (
	"net/url"
	"sort"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
)

// withPassword gives a PostgreSQL or MySQL URL without a password the
// password of a --db URL of the same kind for the same user on the same
// server (host and port, and a MySQL URL's socket), so that the variant
// schemas (MySQL: databases) `sqlgym variants` lists in db_variants, which
// it writes without the password, open as the reader the user named. With no
// such --db URL the DSN is left as it is and the driver looks for the
// password where libpq does (PGPASSWORD, ~/.pgpass, PGPASSFILE).
func (c *Catalog) withPassword(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, has := u.User.Password(); has {
		return dsn
	}
	names := make([]string, 0, len(c.refs))
	for n := range c.refs {
		names = append(names, n)
	}
	sort.Strings(names) // the first by name, whatever the map's order
	dialect := sqlgym.URLDialect(dsn)
	for _, n := range names {
		loc, err := engine.ParseURL(c.refs[n])
		if err != nil || loc.Dialect != dialect {
			continue
		}
		r, err := url.Parse(loc.DSN)
		if err != nil || r.User == nil || r.User.Username() != u.User.Username() || r.Host != u.Host ||
			r.Query().Get("socket") != u.Query().Get("socket") {
			continue
		}
		if pw, has := r.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), pw)
			return u.String()
		}
	}
	return dsn
}
