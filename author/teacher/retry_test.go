package teacher

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/retry"
)

// Both teachers retry exactly the statuses of the one shared policy: the
// Anthropic teacher used to retry 505 and the model client not, and their
// lists could drift apart again if either kept its own.
func TestTeachersRetryTheSharedStatuses(t *testing.T) {
	for _, provider := range []string{ProviderOpenAI, ProviderAnthropic} {
		for _, code := range []int{400, 408, 409, 422, 429, 500, 501, 502, 503, 505, 529} {
			t.Run(fmt.Sprintf("%s/%d", provider, code), func(t *testing.T) {
				answer := anthropicError(code, "api_error", "status "+fmt.Sprint(code), nil)
				url := ""
				if provider == ProviderOpenAI {
					answer = canned{status: code, body: fmt.Sprintf(`{"error":{"message":"status %d","type":"server_error"}}`, code)}
				}
				sc := &script{answers: []canned{answer}}
				srv := httptest.NewServer(sc)
				defer srv.Close()
				url = srv.URL
				if provider == ProviderOpenAI {
					url += "/v1"
				}
				w := &waits{}
				tc := newTeacher(t, provider, url, w, Options{MaxRetries: 1, Parallel: 1})
				_, err := tc.Propose(context.Background(), &sqlgym.Schema{}, 3, rand.New(rand.NewPCG(1, 1)))
				if err == nil {
					t.Fatalf("status %d: no error", code)
				}
				want := 1
				if retry.Status(code) {
					want = 2
				}
				if got := sc.calls(); got != want {
					t.Errorf("status %d: %d requests, want %d (retryable: %v)", code, got, want, retry.Status(code))
				}
			})
		}
	}
}
