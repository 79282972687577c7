package duckdb

import (
	"fmt"
	"net/url"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"
)

// writer opens a connector that writes the file at path for sqlgym's own
// statements (Create, Edit): no file or network access, no extension
// loading, and one thread, so that statements picking rows by key order
// give the same file from the same list every time. op names the caller
// in errors.
func writer(op, path string) (*duck.Connector, error) {
	if strings.ContainsAny(path, "?#%") {
		return nil, fmt.Errorf("%s duckdb database %s: the path contains '?', '#' or '%%', which the DuckDB driver cannot take", op, path)
	}
	settings := url.Values{}
	settings.Set("enable_external_access", "false")
	settings.Set("autoinstall_known_extensions", "false")
	settings.Set("autoload_known_extensions", "false")
	settings.Set("threads", "1")
	c, err := duck.NewConnector(path+"?"+settings.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s duckdb database %s: %w", op, path, err)
	}
	return c, nil
}
