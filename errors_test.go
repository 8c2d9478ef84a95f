package tgmigrate_test

import (
	"testing"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// TestSentinelsAreReexported: every category the root package exports is
// the very value internal/awserr classifies into, so errors.Is on the root's
// sentinels matches what the packages return.
func TestSentinelsAreReexported(t *testing.T) {
	for name, pair := range map[string][2]error{
		"ErrNotFound":        {tgmigrate.ErrNotFound, awserr.ErrNotFound},
		"ErrThrottled":       {tgmigrate.ErrThrottled, awserr.ErrThrottled},
		"ErrInvalidTarget":   {tgmigrate.ErrInvalidTarget, awserr.ErrInvalidTarget},
		"ErrQuotaExceeded":   {tgmigrate.ErrQuotaExceeded, awserr.ErrQuotaExceeded},
		"ErrResourceInUse":   {tgmigrate.ErrResourceInUse, awserr.ErrResourceInUse},
		"ErrInvalidRequest":  {tgmigrate.ErrInvalidRequest, awserr.ErrInvalidRequest},
		"ErrAccessDenied":    {tgmigrate.ErrAccessDenied, awserr.ErrAccessDenied},
		"ErrConflict":        {tgmigrate.ErrConflict, awserr.ErrConflict},
		"ErrUnknown":         {tgmigrate.ErrUnknown, awserr.ErrUnknown},
		"ErrTransport":       {tgmigrate.ErrTransport, awserr.ErrTransport},
		"ErrInvalidARN":      {tgmigrate.ErrInvalidARN, awserr.ErrInvalidARN},
		"ErrARNMalformed":    {tgmigrate.ErrARNMalformed, awserr.ErrARNMalformed},
		"ErrARNService":      {tgmigrate.ErrARNService, awserr.ErrARNService},
		"ErrARNResourceType": {tgmigrate.ErrARNResourceType, awserr.ErrARNResourceType},
		"ErrWrongAccount":    {tgmigrate.ErrWrongAccount, awserr.ErrWrongAccount},
		"ErrWrongRegion":     {tgmigrate.ErrWrongRegion, awserr.ErrWrongRegion},
	} {
		if pair[0] == nil || pair[0] != pair[1] {
			t.Errorf("tgmigrate.%s = %v, want awserr.%s (%v)", name, pair[0], name, pair[1])
		}
	}
}
