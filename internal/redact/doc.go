// Package redact removes secrets from what sqlgym records: a password in
// a URL's user info or a key/value DSN, a secret-named flag or query
// parameter (--api-key, token=, password=), an API key's text (sk-...).
// The ledger, run manifests and reports record command lines and URLs
// through it, so a password given on the command line is never written to
// a file that is shared or committed.
package redact
