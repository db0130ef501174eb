package iozone

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"ioswarm/result"
)

// The worksheet -b writes is the oldest Excel format (BIFF2), as IOzone
// 3.489 writes it: little-endian records of a 16-bit type and a 16-bit
// length, a beginning-of-file record naming a worksheet, one record per
// cell and an end-of-file record. Spreadsheets still open it, and the
// scripts that read IOzone's workbooks read cells at IOzone's row and
// column, so every cell goes where IOzone puts it.
const (
	biffBOF    = 0x0009
	biffNumber = 0x0003
	biffLabel  = 0x0004
	biffEOF    = 0x000a

	biffVersion   = 0x0002 // Excel 2
	biffWorksheet = 0x0010

	// IOzone writes every label record at one size: the cell's place,
	// three attribute bytes, the text's length and 256 bytes for the text,
	// zero-padded. Its text is at most 255 bytes.
	labelText    = 256
	labelLength  = 2 + 2 + 3 + 1 + labelText
	numberLength = 2 + 2 + 3 + 8 // place, attributes, an IEEE double
)

// sheet writes the cells of one worksheet, remembering the first error.
type sheet struct {
	w   *bufio.Writer
	err error
}

func (s *sheet) record(kind uint16, body []byte) {
	if s.err != nil {
		return
	}
	var head [4]byte
	binary.LittleEndian.PutUint16(head[0:], kind)
	binary.LittleEndian.PutUint16(head[2:], uint16(len(body)))
	if _, err := s.w.Write(head[:]); err != nil {
		s.err = err
		return
	}
	_, s.err = s.w.Write(body)
}

// cell is the start of a cell record: its row and column, and three
// attribute bytes left zero (no format, font or protection).
func cell(row, col int, size int) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint16(b[0:], uint16(row))
	binary.LittleEndian.PutUint16(b[2:], uint16(col))
	return b
}

func (s *sheet) label(row, col int, text string) {
	if len(text) > labelText-1 {
		text = text[:labelText-1]
	}
	b := cell(row, col, labelLength)
	b[7] = byte(len(text))
	copy(b[8:], text)
	s.record(biffLabel, b)
}

func (s *sheet) number(row, col int, v float64) {
	b := cell(row, col, numberLength)
	binary.LittleEndian.PutUint64(b[7:], math.Float64bits(v))
	s.record(biffNumber, b)
}

// table writes one of IOzone's -R tables from row on, as its
// dump_throughput and dump_throughput_cpu do: the title and two lines in
// column 0, then each row's name (" %15s " less its leading quote) in
// column 0 and its values from column 2 on, one column per thread count.
// It returns the row after the table.
func (s *sheet) table(row int, title string, recordKB int64, unit string, rows []ExcelRow) int {
	s.label(row, 0, title)
	s.label(row+1, 0, fmt.Sprintf("Record size = %d kBytes", recordKB))
	s.label(row+2, 0, "Output is in "+unit)
	row += 3
	for _, r := range rows {
		s.label(row, 0, fmt.Sprintf("%15s ", r.Test))
		for i, v := range r.Values {
			s.number(row, 2+i, v)
		}
		row++
	}
	return row
}

// WriteWorkbook writes the worksheet IOzone writes with -b: the command
// line (IOzone's, as it keeps it: each word followed by a space), then
// the -R table's cells, then with -+u the CPU table's.
func WriteWorkbook(w io.Writer, jobs []*result.Job, cmd Command, commandLine []string) error {
	rows, err := ExcelRows(jobs, cmd)
	if err != nil {
		return err
	}
	rec := tableRecordKB(jobs, cmd)
	line := ""
	for _, word := range commandLine {
		line += word + " "
	}
	s := &sheet{w: bufio.NewWriter(w)}
	bof := make([]byte, 4)
	binary.LittleEndian.PutUint16(bof[0:], biffVersion)
	binary.LittleEndian.PutUint16(bof[2:], biffWorksheet)
	s.record(biffBOF, bof)
	s.label(0, 0, line)
	next := s.table(1, throughputTitle(cmd), rec, tableUnit(cmd), rows)
	if cmd.CPUUtil {
		cpu, err := CPURows(jobs, cmd)
		if err != nil {
			return err
		}
		s.table(next, cpuTitle(cmd), rec, "CPU%", cpu)
	}
	s.record(biffEOF, nil)
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// Cell is one cell of a worksheet as ReadWorkbook finds it: a label's
// text, or a number.
type Cell struct {
	Row, Col int
	Text     string
	Value    float64
	Number   bool
}

// ReadWorkbook reads back a worksheet in the shape IOzone's -b writer and
// WriteWorkbook give it, and refuses anything else: a first record that
// is not an Excel 2 worksheet's beginning, a record IOzone never writes,
// a label or number record of another size or with attributes, bytes
// after the end. The suite holds ioswarm's worksheet against real
// IOzone's with it.
func ReadWorkbook(b []byte) ([]Cell, error) {
	var cells []Cell
	first, ended := true, false
	for len(b) > 0 {
		if ended {
			return nil, fmt.Errorf("%d bytes after the end record", len(b))
		}
		if len(b) < 4 {
			return nil, fmt.Errorf("a record cut at %d bytes", len(b))
		}
		kind, n := binary.LittleEndian.Uint16(b), int(binary.LittleEndian.Uint16(b[2:]))
		if len(b) < 4+n {
			return nil, fmt.Errorf("record %#x of %d bytes cut at %d", kind, n, len(b)-4)
		}
		body := b[4 : 4+n]
		b = b[4+n:]
		if first != (kind == biffBOF) {
			return nil, fmt.Errorf("record %#x: a worksheet begins, and only begins, with its BOF record", kind)
		}
		first = false
		at := func() (int, int) {
			return int(binary.LittleEndian.Uint16(body)), int(binary.LittleEndian.Uint16(body[2:]))
		}
		switch kind {
		case biffBOF:
			if n != 4 || binary.LittleEndian.Uint16(body) != biffVersion || binary.LittleEndian.Uint16(body[2:]) != biffWorksheet {
				return nil, fmt.Errorf("BOF record % x: not an Excel 2 worksheet", body)
			}
		case biffLabel:
			if n != labelLength || body[4]|body[5]|body[6] != 0 {
				return nil, fmt.Errorf("label record of %d bytes, attributes % x: IOzone's are %d bytes, none", n, body[4:7], labelLength)
			}
			// The bytes after the text are not read: IOzone's writer
			// zeroes all but the last, which holds whatever it held.
			l := int(body[7])
			row, col := at()
			cells = append(cells, Cell{Row: row, Col: col, Text: string(body[8 : 8+l])})
		case biffNumber:
			if n != numberLength || body[4]|body[5]|body[6] != 0 {
				return nil, fmt.Errorf("number record of %d bytes, attributes % x: IOzone's are %d bytes, none", n, body[4:7], numberLength)
			}
			row, col := at()
			cells = append(cells, Cell{Row: row, Col: col, Value: math.Float64frombits(binary.LittleEndian.Uint64(body[7:])), Number: true})
		case biffEOF:
			if n != 0 {
				return nil, fmt.Errorf("end record with %d bytes", n)
			}
			ended = true
		default:
			return nil, fmt.Errorf("record %#x: IOzone's worksheets have none", kind)
		}
	}
	if !ended {
		return nil, fmt.Errorf("no end record")
	}
	return cells, nil
}
