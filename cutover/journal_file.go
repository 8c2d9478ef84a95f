package cutover

// journal_file.go gives cutover's names to the journal kept in a file,
// which package journal defines.

import "github.com/qstools/tgmigrate/cutover/journal"

// FileJournalOptions configures a [FileJournal].
type FileJournalOptions = journal.FileOptions

// FileJournal is a [Journal] kept in one file per plan, for runs without a
// cluster to write to, or as a local copy. It writes atomically and refuses
// a lost update with a *ConflictError; see [journal.File].
type FileJournal = journal.File

// NewFileJournal returns the journal kept at path. It reads nothing; call
// Load first to resume. An empty path, a path that is a directory or not a
// regular file (a symlink, a device), or a path whose parent is not an
// existing directory gives an *InputError.
func NewFileJournal(path string, opts FileJournalOptions) (*FileJournal, error) {
	return journal.NewFile(path, opts)
}
