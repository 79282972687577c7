package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/shopdb"
)

// CacheDir is where sqlgym keeps materialised databases: dir if given, else
// $SQLGYM_CACHE, else the user cache dir's sqlgym folder.
func CacheDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	if d := os.Getenv("SQLGYM_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find a cache folder (set SQLGYM_CACHE): %w", err)
	}
	return filepath.Join(base, "sqlgym"), nil
}

// MaterializeShop makes sure the built-in shop database exists as a SQLite
// file in the cache and returns its path. The file name carries the
// database's digest, so a new sqlgym version never reads an old copy; it is
// written to a temporary name and renamed, so concurrent processes never see
// half a file.
func MaterializeShop(cacheDir string) (string, error) {
	dir, err := CacheDir(cacheDir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "shop-"+shopdb.Digest()[:12]+".sqlite")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create cache folder (set SQLGYM_CACHE to another): %w", err)
	}
	err = atomicfile.Build(path, func(tmp string) error {
		return sqlite.Create(context.Background(), tmp, shopdb.Statements())
	})
	if err != nil {
		return "", fmt.Errorf("materialise the shop database: %w", err)
	}
	return path, nil
}

// MaterializeShopVariants makes sure the built-in shop's shipped variants
// (shopdb.Variants) exist as SQLite files in the cache, in a folder named
// by their digest, and returns their paths in order. Each is built like
// the shop itself (temporary name, then rename), from shop.sql followed by
// the variant's statements.
func MaterializeShopVariants(cacheDir string) ([]string, error) {
	vs, err := shopdb.Variants()
	if err != nil {
		return nil, err
	}
	base, err := CacheDir(cacheDir)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(base, "shop-variants-"+shopdb.VariantsDigest()[:12])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cache folder (set SQLGYM_CACHE to another): %w", err)
	}
	var paths []string
	for _, v := range vs.Variants {
		path := filepath.Join(dir, v.Name+".sqlite")
		paths = append(paths, path)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		stmts := append(shopdb.Statements(), v.Statements...)
		if err := atomicfile.Build(path, func(tmp string) error { return sqlite.Create(context.Background(), tmp, stmts) }); err != nil {
			return nil, fmt.Errorf("materialise the shop variant %s: %w", v.Name, err)
		}
	}
	return paths, nil
}
