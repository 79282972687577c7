// Package schema loads a database's schema through its engine (tables,
// columns, keys, row counts and a few real values per column) and renders
// it as the DDL that prompts, authoring and the agent show a model. One
// renderer serves evaluation and every training export, so a model sees the
// same schema text in both.
package schema
