package kube

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "config")
	if err := os.WriteFile(good, []byte(`apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://127.0.0.1:6443"}
- name: b
  cluster: {server: "https://127.0.0.2:6443"}
users:
- name: u
  user: {token: "secret-token"}
contexts:
- name: ctx-a
  context: {cluster: a, user: u}
- name: ctx-b
  context: {cluster: b, user: u}
current-context: ctx-a
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(good, "")
	if err != nil || cfg.Host != "https://127.0.0.1:6443" {
		t.Fatalf("LoadConfig(current) = %v, %v", cfg, err)
	}
	cfg, err = LoadConfig(good, "ctx-b")
	if err != nil || cfg.Host != "https://127.0.0.2:6443" {
		t.Fatalf("LoadConfig(ctx-b) = %v, %v", cfg, err)
	}
	if _, err := LoadConfig(good, "nope"); err == nil {
		t.Error("unknown context: want an error")
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing"), ""); err == nil {
		t.Error("missing file: want an error")
	}
	t.Setenv("KUBECONFIG", filepath.Join(dir, "absent"))
	t.Setenv("HOME", dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := LoadConfig("", ""); !errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("no kubeconfig anywhere: err = %v, want ErrNoKubeconfig", err)
	}
}
