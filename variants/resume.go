package variants

import (
	"context"
	"fmt"
	"regexp"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/postgres"
)

// A PostgreSQL or MySQL database's variants are schemas or databases on
// its server, not files; its folder DIR/NAME holds only done.json. The
// folder is made when the generation starts, so a run stopped halfway
// leaves it without done.json: the next run knows the NAME_vK and NAME_cK
// it finds on the server are its own leftovers and drops them
// (Options.Replace for that database) instead of refusing them. A
// finished folder is resumed like a file database's: same key (the
// original's digest read on the server), every variant's digest as
// recorded (Done.StaleOn).

// admin is the URL the generation reads and writes the server with, and
// the original's schema (PostgreSQL) or database (MySQL).
func serverAdmin(loc engine.Location, opt Options) (admin, place string) {
	switch loc.Dialect {
	case sqlgym.DialectPostgres:
		admin, place = opt.PostgresAdmin, loc.Schema
		if admin == "" {
			admin = loc.DSN
		}
		if place == "" {
			place = opt.PostgresSchema
		}
		if place == "" {
			place = "public"
		}
	case sqlgym.DialectMySQL:
		admin, place = opt.MySQLAdmin, mysql.URLDatabase(loc.DSN)
		if admin == "" {
			admin = loc.DSN
		}
	}
	return admin, place
}

// OriginalDigest is the digest a generation records for the database at
// url (DBResult.Digest): its file's, or its schema's or database's read
// on the server with the admin account.
func OriginalDigest(ctx context.Context, url string, opt Options) (string, error) {
	loc, err := engine.ParseURL(url)
	if err != nil {
		return "", err
	}
	admin, place := serverAdmin(loc, opt)
	switch loc.Dialect {
	case sqlgym.DialectPostgres:
		return postgres.Digest(ctx, admin, place)
	case sqlgym.DialectMySQL:
		return mysql.Digest(ctx, admin, place)
	}
	return sqlgym.FileDigest(loc.Path)
}

// StaleOn is Stale for every engine: url is the original's, whose
// server holds a PostgreSQL or MySQL database's variants, read with
// the admin account of opt.
func (d *Done) StaleOn(ctx context.Context, root, url string, opt Options) (string, error) {
	if s := d.Stale(root); s != "" {
		return s, nil
	}
	loc, err := engine.ParseURL(url)
	if err != nil {
		return "", err
	}
	admin, _ := serverAdmin(loc, opt)
	for _, k := range d.Result.Variants {
		if k.Path != "" || k.URL == "" {
			continue
		}
		vl, err := engine.ParseURL(k.URL)
		if err != nil {
			return "", err
		}
		var got, what string
		switch vl.Dialect {
		case sqlgym.DialectPostgres:
			what = "schema " + vl.Schema
			var names []string
			if names, err = postgres.SchemasLike(ctx, admin, "^"+regexp.QuoteMeta(vl.Schema)+"$"); err == nil && len(names) == 1 {
				got, err = postgres.Digest(ctx, admin, vl.Schema)
			}
		case sqlgym.DialectMySQL:
			db := mysql.URLDatabase(vl.DSN)
			what = "database " + db
			var names []string
			if names, err = mysql.DatabasesLike(ctx, admin, "^"+regexp.QuoteMeta(db)+"$"); err == nil && len(names) == 1 {
				got, err = mysql.Digest(ctx, admin, db)
			}
		default:
			continue
		}
		if err != nil {
			return "", fmt.Errorf("variant %s: %w", k.Name, err)
		}
		switch {
		case got == "":
			return fmt.Sprintf("variant %s is missing", what), nil
		case got != k.Digest:
			return fmt.Sprintf("variant %s changed since it was made", what), nil
		}
	}
	return "", nil
}
