package sshlaunch

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// hostKeys checks server keys against known_hosts files. Each distinct
// list of files is read once per launcher. An unknown, changed or revoked
// key is an error naming the host and the key's fingerprint; no key is
// ever accepted or recorded without the user.
type hostKeys struct {
	mu    sync.Mutex
	dbs   map[string]*keyDB
	dummy ssh.PublicKey
}

type keyDB struct {
	files []string // the files that existed, for messages
	all   []string // every file searched
	check ssh.HostKeyCallback
}

func (k *hostKeys) db(files []string) (*keyDB, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := strings.Join(files, "\x00")
	if d, ok := k.dbs[key]; ok {
		return d, nil
	}
	d := &keyDB{all: files}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			d.files = append(d.files, f)
		}
	}
	check, err := knownhosts.New(d.files...)
	if err != nil {
		return nil, fmt.Errorf("reading known hosts: %w", err)
	}
	d.check = check
	if k.dbs == nil {
		k.dbs = make(map[string]*keyDB)
	}
	k.dbs[key] = d
	return d, nil
}

// callback returns the check for h and the host key algorithms to ask the
// server for: those of the keys known for h, so that a server offering
// several key types presents one the files can confirm.
func (k *hostKeys) callback(h hop) (ssh.HostKeyCallback, []string, error) {
	d, err := k.db(h.KnownHosts)
	if err != nil {
		return nil, nil, err
	}
	algos, err := k.knownAlgorithms(d, h.KeyName)
	if err != nil {
		return nil, nil, err
	}
	return d.verify, algos, nil
}

// knownAlgorithms asks the database which keys it holds for name by
// presenting a throwaway key, which can never match: the error lists the
// keys that would have.
func (k *hostKeys) knownAlgorithms(d *keyDB, name string) ([]string, error) {
	k.mu.Lock()
	if k.dummy == nil {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			k.mu.Unlock()
			return nil, fmt.Errorf("host key probe: %w", err)
		}
		k.dummy, _ = ssh.NewPublicKey(pub)
	}
	dummy := k.dummy
	k.mu.Unlock()
	var ke *knownhosts.KeyError
	if err := d.check(name, &net.TCPAddr{IP: net.IPv4zero}, dummy); !errors.As(err, &ke) {
		return nil, nil
	}
	var algos []string
	for _, w := range ke.Want {
		for _, a := range algorithmsFor(w.Key.Type()) {
			if !slices.Contains(algos, a) {
				algos = append(algos, a)
			}
		}
	}
	return algos, nil
}

// algorithmsFor lists the signature algorithms a key type can sign with.
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

// verify is the HostKeyCallback; name is the host:port looked up (the
// HostKeyAlias or HostName of the hop).
func (d *keyDB) verify(name string, remote net.Addr, key ssh.PublicKey) error {
	err := d.check(name, remote, key)
	if err == nil {
		return nil
	}
	host := knownhosts.Normalize(name)
	offered := key.Type() + " " + ssh.FingerprintSHA256(key)
	var ke *knownhosts.KeyError
	var re *knownhosts.RevokedError
	switch {
	case errors.As(err, &ke) && len(ke.Want) == 0:
		where := "none of " + strings.Join(d.all, ", ") + " exists"
		if len(d.files) > 0 {
			where = "it is in none of " + strings.Join(d.files, ", ")
		}
		return fmt.Errorf("host key of %s is not known: the server offers %s and %s; "+
			"check that fingerprint with the node's administrator, then add the key to known_hosts "+
			"(for example by logging in once with ssh)", host, offered, where)
	case errors.As(err, &ke):
		var known []string
		for _, w := range ke.Want {
			known = append(known, fmt.Sprintf("%s %s (%s:%d)", w.Key.Type(),
				ssh.FingerprintSHA256(w.Key), w.Filename, w.Line))
		}
		return fmt.Errorf("HOST KEY OF %s HAS CHANGED: the server offers %s, known_hosts holds %s; "+
			"refusing to connect (the node was reinstalled, or someone is intercepting the connection)",
			host, offered, strings.Join(known, ", "))
	case errors.As(err, &re):
		return fmt.Errorf("host key of %s is revoked (%s:%d): the server offers %s; refusing to connect",
			host, re.Revoked.Filename, re.Revoked.Line, offered)
	}
	return fmt.Errorf("checking the host key of %s: %w", host, err)
}
