package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces every secret.
const Mask = "xxxxx"

// secretName matches a flag, parameter or field name that holds a secret
// itself. A name ending in -env or _env ("--api-key-env") holds the name
// of a variable, not the secret, and does not match.
var secretName = regexp.MustCompile(`(?i)(^|[-_.])(api[-_]?key|apikey|key|token|access[-_]?token|password|passwd|pwd|secret|client[-_]?secret|auth|authorization)$`)

// IsSecretName reports whether a flag or field called name holds a secret.
func IsSecretName(name string) bool {
	return secretName.MatchString(strings.TrimLeft(name, "-"))
}

var (
	// scheme://user:password@ anywhere in a text.
	userInfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*):([^@\s/]*)@`)
	// scheme://user:password@ in one command-line argument or one URL,
	// where nothing else can follow: the password runs to the last '@',
	// so it may hold white space, '@' and '/' as typed (issue 25: a tab or
	// a space in it left it in the ledger and the .lock files).
	userInfoWhole = regexp.MustCompile(`(?s)([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*):(.*)@`)
	// password=... in a key/value DSN or a query string, quoted or not.
	keyValue = regexp.MustCompile(`(?i)\b(password|passwd|pwd|api[_-]?key|apikey|access[_-]?token|token|secret|client[_-]?secret)(\s*=\s*)('[^']*'|"[^"]*"|[^\s&;,]+)`)
	// Bearer tokens and API keys by their shape (OpenAI, Anthropic, ...).
	keyShape = regexp.MustCompile(`\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_\-]{8,}|(?i:\bbearer\s+)[A-Za-z0-9._~+/\-]{8,}=*`)
)

// Text masks every secret found in s: URL passwords, key=value secrets and
// API keys. Everything else is kept as it was.
func Text(s string) string {
	s = userInfo.ReplaceAllString(s, "${1}:"+Mask+"@")
	s = keyValue.ReplaceAllString(s, "${1}${2}"+Mask)
	s = keyShape.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:strings.IndexAny(m, " \t")+1] + Mask
		}
		return m[:strings.Index(m, "-")+1] + Mask
	})
	return s
}

// URL masks a URL's password and the values of its secret-named query
// parameters; a string that does not parse as a URL is masked as Text.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return Text(wholeUserInfo(raw))
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), Mask)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if IsSecretName(k) {
				q[k] = []string{Mask}
			}
		}
		u.RawQuery = q.Encode()
	}
	return strings.Replace(u.String(), url.QueryEscape(Mask), Mask, -1)
}

// Args masks a command line: the value of a secret-named flag (--api-key
// K, --token=K), and every secret Text finds in the other arguments
// (--db x=postgres://me:pw@host/db).
func Args(argv []string) []string {
	out := make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		switch {
		case maskNext:
			out[i], maskNext = Mask, false
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(a, "=")
			if IsSecretName(name) {
				if hasValue {
					out[i] = name + "=" + Mask
				} else {
					out[i], maskNext = a, true
				}
				continue
			}
			out[i] = Text(wholeUserInfo(a))
		default:
			out[i] = Text(wholeUserInfo(a))
		}
	}
	return out
}

// Map returns m with the values of secret-named keys masked, as a copy;
// nested maps are masked too. m itself is not changed.
func Map(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case IsSecretName(k):
			out[k] = Mask
		default:
			if sub, ok := v.(map[string]any); ok {
				out[k] = Map(sub)
			} else if s, ok := v.(string); ok {
				out[k] = Text(s)
			} else {
				out[k] = v
			}
		}
	}
	return out
}

// wholeUserInfo masks the password of a URL that s holds whole (one
// argument, one URL): everything from the user name's colon to the last
// '@'. It may mask more than the password when s holds two URLs, never
// less.
func wholeUserInfo(s string) string {
	return userInfoWhole.ReplaceAllString(s, "${1}:"+Mask+"@")
}

// DropPassword returns a database URL fit to be written down and used
// again: without the password of its user info and without its
// secret-named query parameters (password=, sslpassword=...). Whoever reads
// it supplies the credentials again (the --db URL of the same server and
// user, PGPASSWORD, ~/.pgpass). A string that does not parse as a URL is
// masked as URL masks it.
func DropPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return URL(raw)
	}
	changed := false
	if _, has := u.User.Password(); has {
		u.User, changed = url.User(u.User.Username()), true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if IsSecretName(k) {
				q.Del(k)
				changed = true
			}
		}
		u.RawQuery = q.Encode()
	}
	if !changed {
		// u.String() would re-escape a path ("my dir" to "my%20dir").
		return raw
	}
	return u.String()
}
