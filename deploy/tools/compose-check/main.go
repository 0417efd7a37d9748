// compose-check loads a compose file the way `docker compose config` does, with compose-go (the
// library docker compose is built on): interpolation, env_file reading, validation against the
// Compose Specification's JSON schema, normalization and the loader's consistency checks (unknown
// services in depends_on, undeclared volumes and networks). It prints the resolved project as JSON
// and exits 1 with the loader's error otherwise. No Docker engine is needed.
//
//	compose-check path/to/compose.yaml
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check COMPOSE_FILE")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(
		[]string{os.Args[1]},
		cli.WithOsEnv,
		cli.WithEnvFiles(), // the compose folder's .env, as docker compose reads it for interpolation
		cli.WithDotEnv,
		cli.WithConsistency(true),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		fail(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(out, '\n'))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compose-check:", err)
	os.Exit(1)
}
