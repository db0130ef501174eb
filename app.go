package main

import (
	"context"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"ioswarm/internal/usage"
)

func newApp() *cli.App {
	return &cli.App{
		Name:    "ioswarm",
		Usage:   "measure what a filesystem really delivers to a cluster",
		Version: fullVersion(),
		Description: "N threads over many nodes write and read N files (or do random 4 KiB\n" +
			"I/O), timed together; figures are defined in the README. With no nodes\n" +
			"given, ranks run on this machine.",
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + exitCodesHelp + "\n",
		Commands: []*cli.Command{
			runCommand(),
			iozoneCommand(),
			sweepCommand(),
			studyCommand(),
			compareCommand(),
			plotCommand(),
			reportCommand(),
			hostsCommand(),
			versionCommand(),
			rankCommand(),
			serveCopyCommand(),
			cleanupCommand(),
			helpCommand(),
		},
		// The CLI adds --help itself only when it adds its own help
		// command, which helpCommand replaces: without this, `ioswarm
		// --help` was an unknown flag (exit 2).
		Flags:        []cli.Flag{cli.HelpFlag},
		OnUsageError: onUsageError,
		// Errors are printed once, by main, as one line.
		ExitErrHandler: func(*cli.Context, error) {},
		// Reached with arguments only when the first names no command.
		Action: func(c *cli.Context) error {
			if c.Args().Len() == 0 {
				return helpForNoCommand(c)
			}
			return unknownCommand(c.App.Commands, c.Args().First())
		},
	}
}

// helpCommand replaces the CLI's own, which fails an unknown topic with
// exit code 3 and no suggestion.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or one command's flags and examples",
		ArgsUsage: "[command]",
		Action: func(c *cli.Context) error {
			name := c.Args().First()
			if name == "" {
				return cli.ShowAppHelp(c)
			}
			if cmd := findCommand(c.App.Commands, name); cmd == nil || cmd.Hidden {
				return unknownCommand(c.App.Commands, name)
			}
			// The app's context, whose commands include name.
			return cli.ShowCommandHelp(c.Lineage()[1], name)
		},
	}
}

// runApp runs the command line args (args[0] is the program), with flags
// given after positional arguments moved in front of them.
func runApp(ctx context.Context, args []string) error {
	app := newApp()
	return app.RunContext(ctx, flagsFirst(app.Commands, args))
}

// command gives a command what every command has: usage errors that name
// the flag (with a hint where one helps), help that ends with examples,
// and its action.
func command(c *cli.Command, examples string, action cli.ActionFunc) *cli.Command {
	c.OnUsageError = onUsageError
	c.Action = action
	c.CustomHelpTemplate = commandHelp
	if examples != "" {
		c.CustomHelpTemplate += "\nEXAMPLES:\n" + examples + "\n"
	}
	return c
}

// categoryOrder is the order --help lists flag groups in: what runs,
// how big, where, how to get there, what comes out. (The CLI would sort
// them by name.)
var categoryOrder = []string{catIO, catSizes, catLaunch, catSSH, catOutput}

// commandHelp is the CLI's command help with the flag groups in
// categoryOrder; a group not in it comes last, as the CLI orders it.
var commandHelp = func() string {
	one := func(cond string) string {
		return `{{range .VisibleFlagCategories}}{{if ` + cond + `}}
   {{.Name}}
{{range .Flags}}
   {{.}}{{end}}
{{end}}{{end}}`
	}
	var groups strings.Builder
	var known []string
	for _, name := range categoryOrder {
		groups.WriteString(one(`eq .Name "` + name + `"`))
		known = append(known, `(ne .Name "`+name+`")`)
	}
	groups.WriteString(one("and " + strings.Join(known, " ")))
	// The CLI adds --help after it has grouped the flags, so no group
	// lists it.
	groups.WriteString("\n   --help, -h  show this help\n")
	return strings.Replace(cli.CommandHelpTemplate, `{{template "visibleFlagCategoryTemplate" .}}`, groups.String(), 1)
}()

// onUsageError turns a flag the CLI could not parse into a usage error
// with a hint where one helps.
func onUsageError(c *cli.Context, err error, _ bool) error {
	flags := c.App.Flags
	if c.Command != nil && len(c.Command.Flags) > 0 {
		flags = c.Command.Flags
	}
	return usage.Wrap(flagProblem(flags, err))
}

// concat joins flag groups into one list.
func concat(groups ...[]cli.Flag) []cli.Flag {
	return slices.Concat(groups...)
}
