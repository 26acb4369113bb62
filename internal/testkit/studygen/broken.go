package studygen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/recording/bag"
)

// writeBroken derives the damaged variants from the intact files in dir:
// a truncated bag, an unindexed bag as a recorder that died leaves it
// (.bag.active), a truncated MCAP and an MCAP whose chunk CRC fails.
func writeBroken(dir string) ([]File, error) {
	var files []File
	derive := func(src, name, what string, damage func([]byte) ([]byte, error)) error {
		data, err := os.ReadFile(filepath.Join(dir, src))
		if err != nil {
			return err
		}
		out, err := damage(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rel := filepath.Join("broken", name)
		if err := writeFileAtomic(filepath.Join(dir, rel), out); err != nil {
			return err
		}
		files = append(files, File{Name: rel, Broken: what})
		return nil
	}
	cutBag := func(data []byte) ([]byte, error) {
		r, err := bag.NewReader(bytes.NewReader(data), int64(len(data)), "study-lz4.bag")
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return data[:r.Header().IndexPos*3/5], nil
	}
	if err := derive("study-lz4.bag", "study-truncated.bag", "cut inside a chunk, 60% of the way to the index", cutBag); err != nil {
		return nil, err
	}
	if err := derive("study.bag", "study.bag.active", "unindexed: recorder died before writing the index", unindex); err != nil {
		return nil, err
	}
	cutMCAP := func(data []byte) ([]byte, error) {
		// Cut the middle chunk 60% of the way through.
		chunks := MCAPChunks(data)
		if len(chunks) == 0 {
			return nil, fmt.Errorf("no chunk to cut")
		}
		c := chunks[len(chunks)/2]
		return data[:c[0]+(c[1]-c[0])*3/5], nil
	}
	if err := derive("study-lz4.mcap", "study-truncated.mcap", "cut 60% of the way through its middle lz4 chunk", cutMCAP); err != nil {
		return nil, err
	}
	if err := derive("study-none.mcap", "study-crc.mcap", "one byte of a message changed inside an uncompressed chunk: chunk CRC mismatch", flipPayloadByte); err != nil {
		return nil, err
	}
	return files, nil
}

// unindex turns a complete bag into what rosbag leaves while recording: the
// header's index_pos, conn_count and chunk_count are zero and nothing
// follows the last chunk's index data records.
func unindex(data []byte) ([]byte, error) {
	r, err := bag.NewReader(bytes.NewReader(data), int64(len(data)), "study.bag")
	if err != nil {
		return nil, err
	}
	pos := int64(r.Header().IndexPos)
	r.Close()
	if pos <= 0 || pos > int64(len(data)) {
		return nil, fmt.Errorf("index_pos %d out of range", pos)
	}
	out := append([]byte{}, data[:pos]...)
	head := out[:min(len(out), 4096+13)]
	for _, f := range []struct {
		name string
		size int
	}{{"index_pos=", 8}, {"conn_count=", 4}, {"chunk_count=", 4}} {
		i := bytes.Index(head, []byte(f.name))
		if i < 0 {
			return nil, fmt.Errorf("bag header has no %s field", f.name)
		}
		v := head[i+len(f.name) : i+len(f.name)+f.size]
		if f.size == 8 {
			binary.LittleEndian.PutUint64(v, 0)
		} else {
			binary.LittleEndian.PutUint32(v, 0)
		}
	}
	return out, nil
}

// flipPayloadByte changes one letter of a string inside a message in the
// middle of the file, so only the chunk CRC notices.
func flipPayloadByte(data []byte) ([]byte, error) {
	out := append([]byte{}, data...)
	i := bytes.Index(out[len(out)/3:], []byte("kitchen_table"))
	if i < 0 {
		return nil, fmt.Errorf("no message payload found to damage")
	}
	out[len(out)/3+i] ^= 0x20
	return out, nil
}

// MCAPChunks returns where each chunk record of an MCAP file's data
// section starts and ends (opcode to the end of its body), walking the
// records (opcode, uint64 length, body) after the magic up to the data
// end record or the first record cut short.
func MCAPChunks(data []byte) [][2]int {
	var chunks [][2]int
	for p := 8; p+9 <= len(data); {
		n := binary.LittleEndian.Uint64(data[p+1:])
		if n > uint64(len(data)-p-9) {
			break
		}
		if data[p] == 0x06 {
			chunks = append(chunks, [2]int{p, p + 9 + int(n)})
		}
		if data[p] == 0x0F { // data end
			break
		}
		p += 9 + int(n)
	}
	return chunks
}
