package sdkprobe
import (
	"testing"
	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)
func TestX(t *testing.T) { _ = anthropic.NewClient(option.WithMaxRetries(0)) }
