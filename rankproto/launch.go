package rankproto

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Subcommand is the hidden command that runs a rank: `<binary> rank ...`.
const Subcommand = "rank"

// The rank command's flags.
const (
	FlagRank             = "rank"
	FlagJob              = "job"
	FlagHost             = "host"
	FlagHeartbeatTimeout = "heartbeat-timeout"
	FlagJoinTimeout      = "join-timeout"
	FlagBcastCopy        = "bcast-copy" // added by the srun launcher
)

// RankArgs are what a rank is told on its command line: nothing secret.
type RankArgs struct {
	Rank             int
	Job, Host        string
	HeartbeatTimeout time.Duration
}

// Argv is the rank command's arguments after Subcommand.
func (a RankArgs) Argv() []string {
	return []string{
		"--" + FlagRank, strconv.Itoa(a.Rank), "--" + FlagJob, a.Job, "--" + FlagHost, a.Host,
		"--" + FlagHeartbeatTimeout, a.HeartbeatTimeout.String(),
	}
}

// LaunchInput is what a launcher writes first on a rank's standard input:
// the job secret and the coordinator's address, one per line.
func LaunchInput(secret []byte, addr string) []byte {
	return []byte(hex.EncodeToString(secret) + "\n" + addr + "\n")
}

// Launch is what a rank reads from its standard input at start.
type Launch struct {
	Secret []byte
	Addr   string
}

// ReadLaunch reads the secret and address lines without buffering past
// them, and returns the rest of the input for the rank's watch. A secret
// shorter than minSecret bytes is malformed.
func ReadLaunch(r io.Reader, minSecret int) (Launch, io.Reader, error) {
	br := bufio.NewReaderSize(r, 512)
	var in Launch
	line, err := br.ReadString('\n')
	if err != nil {
		return in, nil, fmt.Errorf("read job secret from standard input: %w", err)
	}
	in.Secret, err = hex.DecodeString(strings.TrimSpace(line))
	if err != nil || len(in.Secret) < minSecret {
		return in, nil, fmt.Errorf("job secret on standard input is malformed")
	}
	line, err = br.ReadString('\n')
	if err != nil {
		return in, nil, fmt.Errorf("read the coordinator's address from standard input: %w", err)
	}
	in.Addr = strings.TrimSpace(line)
	if _, _, err := net.SplitHostPort(in.Addr); err != nil {
		return in, nil, fmt.Errorf("coordinator address %q on standard input: %w", in.Addr, err)
	}
	return in, br, nil
}

// The hidden command that removes what a job left on a node after its
// rank died, and its flags: `<binary> cleanup --dir DIR --job ID`.
const (
	CleanupSubcommand = "cleanup"
	FlagDir           = "dir"
)

// CleanupArgs are the arguments that remove job's files under dir.
func CleanupArgs(dir, job string) []string {
	return []string{CleanupSubcommand, "--" + FlagDir, dir, "--" + FlagJob, job}
}
