package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Cause names, in a few words, why a request that got no answer failed:
// what a progress line shows beside a retry. The full error stays in the
// error the caller returns.
func Cause(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before the answer"
	case errors.As(err, &dnsErr):
		return "host not found"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	}
	return "connection failed"
}

// Unreachable reports whether err says nothing answered at all (refused,
// unknown host, no route): the server is not running where it was said to be.
func Unreachable(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.As(err, &dnsErr)
}
