// Package data holds the commands that make and shape task and database
// files: db, split, import, author, screen, variants, link, band, export,
// curate. Each command has an options struct and a run function taking
// its IO streams; round calls BandCmd, Band, ExportCmd and RunExport.
package data
