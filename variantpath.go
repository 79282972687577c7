package sqlgym

import (
	"path/filepath"
	"strings"
)

// A task file's db_variants may name SQLite and DuckDB files by a path
// relative to the task file's own folder: `sqlgym variants` writes them so,
// and a folder of variants then still works once moved or copied to
// another machine (issue 24). Absolute paths, PostgreSQL URLs and
// database names are left as they are.

// variantSchemes are the URL schemes whose rest is a file path.
var variantSchemes = []string{"sqlite:", "duckdb:"}

// AnchorVariants rewrites each relative file path in the tasks'
// db_variants to one under dir, the folder of the task file that names
// them. ReadTasks calls it; a reader of task bytes from elsewhere calls it
// with the folder the bytes came from.
func AnchorVariants(tasks []Task, dir string) {
	for i := range tasks {
		for j, u := range tasks[i].DBVariants {
			tasks[i].DBVariants[j] = anchorVariant(u, dir)
		}
	}
}

func anchorVariant(u, dir string) string {
	for _, s := range variantSchemes {
		p, ok := strings.CutPrefix(u, s)
		if !ok {
			continue
		}
		p = strings.TrimPrefix(p, "//")
		if p == "" || filepath.IsAbs(p) {
			return u
		}
		return s + filepath.Join(dir, p)
	}
	return u
}

// RelativeVariant is the URL of a variant file as a task file in dir
// names it: its path relative to dir when the file lies under dir, the
// URL unchanged otherwise (AnchorVariants undoes it on reading).
func RelativeVariant(u, dir string) string {
	for _, s := range variantSchemes {
		p, ok := strings.CutPrefix(u, s)
		if !ok {
			continue
		}
		p = strings.TrimPrefix(p, "//")
		abs, err := filepath.Abs(p)
		if err != nil {
			return u
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return u
		}
		return s + filepath.ToSlash(rel)
	}
	return u
}

// VariantFile is the file a db_variants entry names, or "" for a
// PostgreSQL URL or a database name.
func VariantFile(u string) string {
	for _, s := range variantSchemes {
		if p, ok := strings.CutPrefix(u, s); ok {
			return strings.TrimPrefix(p, "//")
		}
	}
	return ""
}
