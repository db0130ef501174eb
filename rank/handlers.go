package rank

import (
	"context"
	"encoding/json"
	"fmt"

	"ioswarm/barrier"
	"ioswarm/nodefacts"
	"ioswarm/wire"
)

// handler answers one kind of the coordinator's requests.
type handler func(s *state, ctx context.Context, req *barrier.Request) (any, error)

// handlers is the table of request kinds a rank answers; handle looks a
// request up here. It is never written after its initialisation.
var handlers = map[string]handler{
	wire.KindFacts:     withBody(onFacts),
	wire.KindSetup:     withBody(onSetup),
	wire.KindCreate:    onCreate,
	wire.KindPrepare:   withBody(onPrepare),
	wire.KindShared:    onShared,
	wire.KindDrop:      withBody(onDrop),
	wire.KindResident:  withBody(onResident),
	wire.KindRun:       withBody(onRun),
	wire.KindSeries:    withBody(onSeries),
	wire.KindFirstDone: withBody(onFirstDone),
	wire.KindManifest:  onManifest,
	wire.KindFindKept:  onFindKept,
	wire.KindMarker:    withBody(onMarker),
	wire.KindCleanup:   onCleanup,
}

func (s *state) handle(ctx context.Context, req *barrier.Request) (any, error) {
	h, ok := handlers[req.Kind]
	if !ok {
		return nil, fmt.Errorf("unknown request %q", req.Kind)
	}
	return h(s, ctx, req)
}

// withBody makes a handler of a function of the request's decoded body;
// a body that does not decode is the reply's error.
func withBody[In any](fn func(s *state, ctx context.Context, in In) (any, error)) handler {
	return func(s *state, ctx context.Context, req *barrier.Request) (any, error) {
		var in In
		if err := decode(req, &in); err != nil {
			return nil, err
		}
		return fn(s, ctx, in)
	}
}

func decode(req *barrier.Request, v any) error {
	if err := json.Unmarshal(req.Body, v); err != nil {
		return fmt.Errorf("bad %s request: %w", req.Kind, err)
	}
	return nil
}

func onFacts(_ *state, ctx context.Context, in wire.Facts) (any, error) {
	return nodefacts.Gather(ctx, in.Dir), nil
}

func onSetup(s *state, _ context.Context, in wire.Setup) (any, error) { return s.doSetup(in) }

// onCreate makes the job directory and keeps it open.
func onCreate(s *state, _ context.Context, _ *barrier.Request) (any, error) {
	d, err := createJobDir(s.jobDir, s.setup.Rank, s.job.Direct)
	if err != nil {
		return nil, err
	}
	s.dir.close()
	s.dir, s.created = d, true
	return wire.Empty{}, nil
}

// onPrepare readies the files of a phase (untimed) and arms its memory.
func onPrepare(s *state, ctx context.Context, in wire.Prepare) (any, error) {
	s.disarm() // memory armed for a phase that never ran goes first
	if len(in.Sources) > 0 && in.Phase.IsRead() {
		if err := s.pointReads(in.Sources); err != nil {
			return wire.Empty{}, err
		}
	}
	var err error
	switch {
	case in.Phase.IsMeta():
		err = s.prepareMD(in.Phase)
	case s.job.FilesOf != "":
		err = s.checkReused(in.Phase)
	default:
		err = s.prepareFiles(ctx, in.Phase)
	}
	if err == nil {
		err = s.arm(in.Phase)
	}
	return wire.Empty{}, err
}

func onRun(s *state, ctx context.Context, in wire.Run) (any, error) { return s.runPhase(ctx, in) }

// onShared makes the shared file when this rank is asked to and the job
// writes a shared file of its own.
func onShared(s *state, _ context.Context, req *barrier.Request) (any, error) {
	var in wire.MakeShared
	if err := decode(req, &in); err != nil || !in.Make || !s.shared() || s.job.FilesOf != "" {
		return wire.Empty{}, err
	}
	return wire.Empty{}, s.makeShared(in.Phase)
}

func onDrop(s *state, _ context.Context, in wire.Drop) (any, error) {
	if in.Phase.IsMeta() {
		return s.dropMD(), nil
	}
	return s.drop(), nil
}

// onResident measures the page-cache residency of the phase's files and
// reads the client cache's counters before it.
func onResident(s *state, ctx context.Context, in wire.Resident) (any, error) {
	r, t, err := s.residentPages(s.phasePaths(in.Phase))
	s.clientCacheBefore(ctx, in.Phase)
	return wire.ResidentReply{Resident: r, Total: t}, err
}

func onSeries(s *state, _ context.Context, in wire.Series) (any, error) { return s.series(in), nil }

func onFirstDone(s *state, _ context.Context, in wire.FirstDone) (any, error) {
	return s.firstDone(in, s.opBytes()), nil
}

// onManifest writes (or rewrites, keeping its time) a kept job's manifest.
func onManifest(s *state, _ context.Context, req *barrier.Request) (any, error) {
	var in wire.WriteManifest
	if err := decode(req, &in); err != nil || in.Manifest == nil {
		return wire.Empty{}, err
	}
	if in.KeepTime {
		return wire.Empty{}, s.rewriteManifest(*in.Manifest)
	}
	return wire.Empty{}, s.writeManifest(*in.Manifest)
}

func onFindKept(_ *state, _ context.Context, req *barrier.Request) (any, error) {
	var in wire.FindManifest
	if err := decode(req, &in); err != nil || in.Dir == "" {
		return wire.Manifest{}, err
	}
	return findManifest(in.Dir, in.JobID)
}

func onMarker(s *state, _ context.Context, in wire.Marker) (any, error) { return s.marker(in) }

// onCleanup removes this rank's files unless the job keeps them.
func onCleanup(s *state, _ context.Context, _ *barrier.Request) (any, error) {
	s.cleaned = true
	if s.job.Keep {
		return wire.Empty{}, nil
	}
	if err := s.removeMD(); err != nil {
		return wire.Empty{}, err
	}
	return wire.Empty{}, removeFiles(s.jobDir, s.ownFiles())
}
