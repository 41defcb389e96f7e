// Thin wrapper around the upstream kubectl main (k8s.io/kubernetes/cmd/kubectl), built by
// test/cluster/build.sh so the end-to-end tests pipe the real `kubectl apply -o json` into
// `stagewatch observe -f -`. The client auth plugins (OIDC) upstream imports are left out: the local
// cluster authenticates static bearer tokens only.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Pretty-print the error and exit with an error.
		util.CheckErr(err)
	}
}
