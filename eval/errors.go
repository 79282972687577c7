package eval

import (
	"errors"
	"net/http"

	"github.com/sqlgym/sqlgym/model"
)

// isInfraModel reports a model-server failure that outlived the client's
// retries: the sample stays missing and a rerun draws it.
func isInfraModel(err error) bool { return model.IsInfra(err) }

// isFatal reports a failure every other request would meet too: a key the
// server refuses, a model or URL it does not know. Going on would only
// turn the whole run into missing samples.
func isFatal(err error) bool {
	var me *model.Error
	if !errors.As(err, &me) || me.Infra {
		return false
	}
	switch me.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}
