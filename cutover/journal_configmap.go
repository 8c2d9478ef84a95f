package cutover

// journal_configmap.go gives cutover's names to the journal kept in a
// ConfigMap, which package journal defines.

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover/journal"
)

// ConfigMapJournalOptions configures a [ConfigMapJournal].
type ConfigMapJournalOptions = journal.ConfigMapOptions

// ConfigMapJournal is a [Journal] kept in a ConfigMap in the
// TargetGroupBinding's namespace, one per target group, under the data key
// [JournalDataKey], labelled as tgmigrate's; every write carries the
// resourceVersion last seen. See [journal.ConfigMap].
type ConfigMapJournal = journal.ConfigMap

// NewConfigMapJournal returns the journal of opts.TargetGroupARN in
// opts.Namespace. It reads nothing: call Load first to resume. Missing or
// malformed options give an *InputError.
func NewConfigMapJournal(c client.Client, opts ConfigMapJournalOptions) (*ConfigMapJournal, error) {
	return journal.NewConfigMap(c, opts)
}
