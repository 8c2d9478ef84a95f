package kube_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/qstools/tgmigrate/internal/kube"
)

// LoadConfig follows client-go's loading rules and says plainly when there
// is no kubeconfig at all.
func ExampleLoadConfig() {
	dir, _ := os.MkdirTemp("", "kube-example-")
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "config")
	_ = os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: "t"}}]
contexts: [{name: dev, context: {cluster: c, user: u}}]
current-context: dev
`), 0o600)
	cfg, err := kube.LoadConfig(path, "dev")
	fmt.Println(cfg.Host, err)

	_, err = kube.LoadConfig(filepath.Join(dir, "absent"), "")
	fmt.Println(err != nil, errors.Is(err, kube.ErrNoKubeconfig))
	// Output:
	// https://127.0.0.1:6443 <nil>
	// true false
}
