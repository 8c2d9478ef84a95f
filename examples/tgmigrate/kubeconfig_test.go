package main

import (
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRestConfig: --kubeconfig and --context go through client-go's loading
// rules; no kubeconfig anywhere is one clear usage error.
func TestRestConfig(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, "config")
	if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- {name: a, cluster: {server: "https://127.0.0.1:6443"}}
- {name: b, cluster: {server: "https://127.0.0.2:6443"}}
users: [{name: u, user: {token: "secret-token"}}]
contexts:
- {name: ctx-a, context: {cluster: a, user: u}}
- {name: ctx-b, context: {cluster: b, user: u}}
current-context: ctx-a
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, kubeconfig, context string
		env                       string // $KUBECONFIG, when set
		wantHost, wantErr         string
	}{
		{name: "current context", kubeconfig: path, wantHost: "https://127.0.0.1:6443"},
		{name: "--context", kubeconfig: path, context: "ctx-b", wantHost: "https://127.0.0.2:6443"},
		{name: "$KUBECONFIG", env: path, context: "ctx-b", wantHost: "https://127.0.0.2:6443"},
		{name: "unknown context", kubeconfig: path, context: "nope", wantErr: `kube: load kubeconfig: context "nope" does not exist`},
		{name: "missing file", kubeconfig: filepath.Join(home, "missing"), wantErr: "kube: load kubeconfig: stat " + filepath.Join(home, "missing")},
		{name: "no kubeconfig anywhere", wantErr: "kube: no kubeconfig: set --kubeconfig or $KUBECONFIG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("KUBECONFIG", tt.env)
			}
			a := &app{kubeconfig: tt.kubeconfig, kubecontext: tt.context}
			cfg, err := a.restConfig()
			if tt.wantErr != "" {
				var u *usageError
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || !errors.As(err, &u) {
					t.Fatalf("err = %v, want a usage error starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost {
				t.Errorf("host %s, want %s", cfg.Host, tt.wantHost)
			}
		})
	}
}

// TestImportsPublicPackagesOnly: the CLI is built on the SDK's public
// packages (issue 8); the internal packages it may use are the simulator
// (internal/sim and its sub-packages), which simulate embeds, and
// internal/textcell, the text helpers the SDK's own renderers use (a
// count's plural, issue 35), which are no capability of the SDK.
func TestImportsPublicPackagesOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/qstools/tgmigrate/"
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			simulator := path == module+"internal/sim" || strings.HasPrefix(path, module+"internal/sim/")
			text := path == module+"internal/textcell"
			if strings.HasPrefix(path, module) && strings.Contains(path+"/", "/internal/") && !simulator && !text {
				t.Errorf("%s imports %s", file, path)
			}
		}
	}
}
