package faultproxy

import (
	"bufio"
	"io"
)

// watchCutter passes the first n events of a JSON watch stream, then ends
// it, with an ERROR event first when tail is set. kube-apiserver writes a
// JSON watch stream as one event per line, so events are counted by lines;
// every Read returns at most one event, so the proxy flushes event by event.
type watchCutter struct {
	body    io.ReadCloser
	r       *bufio.Reader
	left    int    // events still to pass
	tail    []byte // written once the events have passed; nil: none
	pending []byte // the rest of the event being passed
	done    bool
}

func newWatchCutter(body io.ReadCloser, events int, tail []byte) *watchCutter {
	return &watchCutter{body: body, r: bufio.NewReader(body), left: events, tail: tail}
}

func (c *watchCutter) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		switch {
		case c.done:
			return 0, io.EOF
		case c.left <= 0:
			c.done = true
			if c.tail == nil {
				return 0, io.EOF
			}
			c.pending = c.tail
		default:
			line, err := c.r.ReadBytes('\n')
			if len(line) == 0 {
				if err == nil {
					err = io.EOF
				}
				return 0, err // the stream ended first: pass its end as it is
			}
			if line[len(line)-1] == '\n' {
				c.left--
			}
			c.pending = line
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *watchCutter) Close() error { return c.body.Close() }
