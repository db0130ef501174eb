package wire

import "ioswarm/settings"

// Phase names a phase in a message: settings.Phase, the one definition,
// under the name the messages and their readers have always used.
type Phase = settings.Phase

// The phases, as settings names them.
const (
	Write     = settings.Write
	Rewrite   = settings.Rewrite
	Read      = settings.Read
	Reread    = settings.Reread
	RandWrite = settings.RandWrite
	RandRead  = settings.RandRead
	MDCreate  = settings.MDCreate
	MDStat    = settings.MDStat
	MDRead    = settings.MDRead
	MDDelete  = settings.MDDelete
)

// Phases and MDPhases are settings': every phase, and the metadata ones.
var (
	Phases   = settings.Phases
	MDPhases = settings.MDPhases
)
