package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
)

func mysqlDigest(ctx context.Context, dbs Databases, name string) (string, error) {
	eng, err := dbs.Engine(ctx, name)
	if err != nil {
		return "", err
	}
	return mysqlEngineDigest(ctx, eng)
}

// mysqlEngineDigest digests a MySQL or MariaDB database through its
// (reader's) engine: the structure as the prompt's DDL shows it, then each
// table's row count and order-free content hash.
func mysqlEngineDigest(ctx context.Context, eng sqlgym.Engine) (string, error) {
	s, err := schema.Load(ctx, eng, 0)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	io.WriteString(h, schema.Render(s, schema.Options{}))
	for _, t := range s.Tables {
		c, err := mysqlTableContents(ctx, eng, t)
		if err != nil {
			return "", fmt.Errorf("digest table %s: %w", t.Name, err)
		}
		fmt.Fprintf(h, "\x00%s\x00%s", t.Name, c)
	}
	return "mysql:" + hex.EncodeToString(h.Sum(nil)), nil
}

// mysqlTableContents is a table's row count and two order-free sums of its
// rows' MD5s (an arithmetic sum and an XOR of two halves), computed by the
// server. MySQL has no row-to-text cast and GROUP_CONCAT cuts its result at
// group_concat_max_len, so each row is hashed as the text of its columns
// with a NULL marker per column, and the hashes are summed rather than
// concatenated. A statement a reader may run: the sandbox screens it like
// any other.
func mysqlTableContents(ctx context.Context, eng sqlgym.Engine, t sqlgym.Table) (string, error) {
	var parts []string
	for _, c := range t.Columns {
		q := mysqlQuote(c.Name)
		parts = append(parts, "ISNULL("+q+")", q)
	}
	if len(parts) == 0 {
		parts = []string{"''"}
	}
	q := "SELECT COUNT(*), COALESCE(SUM(CAST(CONV(SUBSTRING(h, 1, 15), 16, 10) AS UNSIGNED)), 0), " +
		"COALESCE(BIT_XOR(CAST(CONV(SUBSTRING(h, 17, 16), 16, 10) AS UNSIGNED)), 0) " +
		"FROM (SELECT MD5(CONCAT_WS(0x1f, " + strings.Join(parts, ", ") + ")) AS h FROM " + mysqlQuote(t.Name) + ") AS d"
	rs, err := eng.Query(ctx, q, contentsLimits)
	if err != nil {
		return "", err
	}
	if len(rs.Rows) != 1 {
		return "", fmt.Errorf("content hash: %d rows", len(rs.Rows))
	}
	var out []string
	for _, v := range rs.Rows[0] {
		out = append(out, v.String())
	}
	return strings.Join(out, " "), nil
}

func mysqlQuote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }
