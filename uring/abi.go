package uring

// The kernel ABI (include/uapi/linux/io_uring.h), fixed for every
// architecture Go supports on Linux.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

const (
	OpRead       = 22 // IORING_OP_READ
	OpWrite      = 23 // IORING_OP_WRITE
	OpReadFixed  = 4  // IORING_OP_READ_FIXED
	OpWriteFixed = 5  // IORING_OP_WRITE_FIXED

	enterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS

	featSingleMmap = 1 << 0 // IORING_FEAT_SINGLE_MMAP

	setupRDisabled    = 1 << 6  // IORING_SETUP_R_DISABLED
	setupCoopTaskrun  = 1 << 8  // IORING_SETUP_COOP_TASKRUN
	setupSingleIssuer = 1 << 12 // IORING_SETUP_SINGLE_ISSUER
	setupDeferTaskrun = 1 << 13 // IORING_SETUP_DEFER_TASKRUN

	registerEnableRings = 12 // IORING_REGISTER_ENABLE_RINGS

	registerBuffers = 0 // IORING_REGISTER_BUFFERS

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)
