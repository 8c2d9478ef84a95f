// file_test.go tests what File does below its Load and Save: the atomic
// write. Its behaviour through the journal is tested in package cutover.

package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileAtomicCleansUp makes the rename fail (the target is a
// non-empty directory) and checks that the temporary file is gone.
func TestWriteFileAtomicCleansUp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "j.json")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(target, []byte("{}")); err == nil {
		t.Fatal("writeFileAtomic over a non-empty directory succeeded")
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 || ents[0].Name() != "j.json" {
		t.Errorf("directory holds %v (%v), want only j.json", ents, err)
	}
	if err := writeFileAtomic(filepath.Join(dir, "missing", "j.json"), []byte("{}")); err == nil {
		t.Fatal("writeFileAtomic into a missing directory succeeded")
	}
}
