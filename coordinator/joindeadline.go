package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"ioswarm/barrier"
)

// defaultJoinTimeout bounds the join when the launch names no limit.
const defaultJoinTimeout = 30 * time.Second

// join waits for every rank to join, at most the launch's JoinTimeout
// after they were all started: a rank that started but never dials
// (stopped, or a stub that reads its input and blocks) would otherwise
// hold the job for good, since heartbeats begin only with the join.
func (s *Session) join(ctx context.Context) ([]barrier.MemberInfo, error) {
	limit, why := s.o.JoinTimeout, s.o.JoinLimit
	if limit <= 0 {
		limit, why = defaultJoinTimeout, ""
	}
	jctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	members, err := s.coord.Join(jctx)
	if err != nil && ctx.Err() == nil && errors.Is(jctx.Err(), context.DeadlineExceeded) && s.coord.Err() == nil {
		return nil, s.notJoined(limit, why)
	}
	return members, err
}

// notJoined names the ranks that did not join within limit: the first as
// a RankError (host and rank, as every error about one rank), the others
// after it.
func (s *Session) notJoined(limit time.Duration, why string) error {
	if why != "" {
		why = " (" + why + ")"
	}
	missing := s.coord.Missing()
	if len(missing) == 0 {
		return fmt.Errorf("ranks did not join within %s%s", limit, why)
	}
	first := s.targets[missing[0]]
	msg := fmt.Sprintf("started but did not join within %s%s", limit, why)
	if rest := missing[1:]; len(rest) > 0 {
		var others []string
		for i, r := range rest {
			if i == 8 {
				others = append(others, fmt.Sprintf("and %d more", len(rest)-i))
				break
			}
			others = append(others, fmt.Sprintf("%s rank %d", s.targets[r].Host, r))
		}
		msg += "; nor did " + strings.Join(others, ", ")
	}
	return &barrier.RankError{Host: first.Host, Rank: first.Rank, Msg: msg}
}
