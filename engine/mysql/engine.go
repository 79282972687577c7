package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym"
)

// Options tune an Engine.
type Options struct {
	// MaxConns bounds the statements running at once (and the reader
	// connections held); zero means 8.
	MaxConns int
	// SkipAccountCheck opens even an account that may write. Only the
	// tools that load a database as its administrator set it; model SQL
	// must never run through such an engine.
	SkipAccountCheck bool
}

// Engine is a sandboxed MySQL or MariaDB database. Safe for concurrent use.
type Engine struct {
	db *sql.DB
	// killer holds the connections that send KILL QUERY: a statement is
	// stopped from outside its own connection, which is busy running it.
	killer  *sql.DB
	mariadb bool
	// sessions maps each driver connection to its connState.
	sessions sync.Map
}

var _ sqlgym.Engine = (*Engine)(nil)

// lexerModes change how the server splits a statement into tokens; the
// engine turns them off so the screen's lexer reads what the server runs.
var lexerModes = map[string]bool{"ANSI_QUOTES": true, "NO_BACKSLASH_ESCAPES": true, "PIPES_AS_CONCAT": true, "ANSI": true}

// Open connects to the database at dsn: a mysql://user:pass@host:port/db
// URL or a go-sql-driver DSN (user:pass@unix(/run/mysqld/mysqld.sock)/db).
// Unless opts.SkipAccountCheck, it refuses an account that may do more
// than SELECT.
func Open(ctx context.Context, dsn string, opts Options) (*Engine, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if cfg.DBName == "" {
		return nil, sqlgym.Userf("name the database in the URL: mysql://USER:PASS@HOST:3306/DB", "mysql: no database in %q", redactDSN(cfg))
	}
	// One statement per call is the server's doing too: without the
	// multi-statements capability it refuses a second statement.
	cfg.MultiStatements = false
	cfg.ParseTime = false
	cfg.InterpolateParams = false
	probe, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	defer probe.Close()
	var version, mode string
	if err := probe.QueryRowContext(ctx, "SELECT VERSION(), @@GLOBAL.sql_mode").Scan(&version, &mode); err != nil {
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("mysql: connect to %s: %w", redactDSN(cfg), err)}
	}
	if !opts.SkipAccountCheck {
		if err := checkAccount(ctx, probe); err != nil {
			return nil, err
		}
	}
	e := &Engine{mariadb: strings.Contains(strings.ToLower(version), "mariadb")}
	cfg.Params = sessionParams(cfg.Params, mode, e.mariadb)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	n := opts.MaxConns
	if n <= 0 {
		n = 8
	}
	e.db = sql.OpenDB(conn)
	e.db.SetMaxOpenConns(n)
	e.db.SetMaxIdleConns(n)
	e.db.SetConnMaxIdleTime(5 * time.Minute)
	e.killer = sql.OpenDB(conn)
	e.killer.SetMaxOpenConns(2)
	if err := e.db.PingContext(ctx); err != nil {
		e.Close()
		return nil, &sqlgym.InfraError{Err: fmt.Errorf("mysql: session settings refused: %w", err)}
	}
	return e, nil
}

// sessionParams are the settings every reader connection starts with: the
// server's own sql_mode without the lexer modes, UTC for TIMESTAMP
// values, and no recursion cap below the time limit (MariaDB stops a
// recursive CTE after max_recursive_iterations without an error, which
// would turn a runaway into a wrong answer instead of a timeout).
func sessionParams(p map[string]string, globalMode string, mariadb bool) map[string]string {
	out := map[string]string{}
	for k, v := range p {
		out[k] = v
	}
	var keep []string
	for _, m := range strings.Split(globalMode, ",") {
		if m != "" && !lexerModes[strings.ToUpper(m)] {
			keep = append(keep, m)
		}
	}
	out["sql_mode"] = "'" + strings.Join(keep, ",") + "'"
	out["time_zone"] = "'+00:00'"
	// A metadata lock held by another session (an administrator's ALTER
	// or LOCK TABLES) fails the statement at once as error 1205, an
	// infrastructure failure, instead of spending its time limit waiting:
	// MariaDB takes 0 (no wait), MySQL's least is 1 second.
	if mariadb {
		out["max_recursive_iterations"] = "4294967295"
		out["lock_wait_timeout"] = "0"
	} else {
		out["cte_max_recursion_depth"] = "4294967295"
		out["lock_wait_timeout"] = "1"
	}
	return out
}

// Dialect is sqlgym.DialectMySQL for MySQL and MariaDB alike.
func (e *Engine) Dialect() sqlgym.Dialect { return sqlgym.DialectMySQL }

// MariaDB reports whether the server is MariaDB rather than MySQL.
func (e *Engine) MariaDB() bool { return e.mariadb }

// Close closes every connection.
func (e *Engine) Close() error {
	err := e.db.Close()
	if kerr := e.killer.Close(); err == nil {
		err = kerr
	}
	return err
}

// parseDSN reads a mysql:// URL or a driver DSN.
func parseDSN(dsn string) (*mysql.Config, error) {
	if strings.HasPrefix(dsn, "mysql://") {
		d, err := DSNFromURL(dsn)
		if err != nil {
			return nil, err
		}
		dsn = d
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, sqlgym.Userf("write mysql://USER:PASS@HOST:3306/DB", "mysql: bad DSN: %w", err)
	}
	return cfg, nil
}

// DSNFromURL turns mysql://user:pass@host:port/db?param=v into the
// driver's DSN. A socket=PATH parameter connects over a Unix socket
// instead of TCP; the port defaults to 3306.
func DSNFromURL(u string) (string, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "mysql" {
		return "", sqlgym.Userf("write mysql://USER:PASS@HOST:3306/DB", "mysql URL %q: %w", u, err)
	}
	cfg := mysql.NewConfig()
	if p.User != nil {
		cfg.User = p.User.Username()
		cfg.Passwd, _ = p.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(p.Path, "/")
	q := p.Query()
	if sock := q.Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
		q.Del("socket")
	} else {
		host, port := p.Hostname(), p.Port()
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", host+":"+port
	}
	dsn := cfg.FormatDSN()
	if len(q) > 0 {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + q.Encode()
	}
	return dsn, nil
}

// redactDSN is the DSN without its password, for messages.
func redactDSN(cfg *mysql.Config) string {
	c := cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = "xxxxx"
	}
	return c.FormatDSN()
}
