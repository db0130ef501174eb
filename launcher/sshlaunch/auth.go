package sshlaunch

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// identities finds the keys to log in with: --identity files, the host's
// IdentityFile entries, the keys ssh-agent holds, then ~/.ssh/id_ed25519,
// id_ecdsa and id_rsa. x/crypto tries the publickey method once per
// connection, so every key goes into one list, most specific first.
// Nothing prompts: a passphrase-protected key is usable only through the
// agent.
type identities struct {
	explicit  []string // --identity
	home      string
	agentSock string

	mu        sync.Mutex
	files     map[string]keyFile
	agentOnce sync.Once
	agentConn net.Conn
	agentKeys []ssh.Signer
	agentErr  error
}

// keyFile is one parsed private key file: a signer, or the public key of
// a protected key (to find it in the agent), or why neither.
type keyFile struct {
	signer ssh.Signer
	pub    ssh.PublicKey
	err    error
}

// keyList gathers the keys to offer, each once, and what was tried.
type keyList struct {
	signers []ssh.Signer
	tried   []string
	seen    map[string]bool
}

func (k *keyList) add(s ssh.Signer) {
	id := string(s.PublicKey().Marshal())
	if !k.seen[id] {
		k.seen[id] = true
		k.signers = append(k.signers, s)
	}
}

// signers returns the keys to offer h and a description of them for the
// message when none is accepted.
func (id *identities) signers(h hop) ([]ssh.Signer, string, error) {
	k := &keyList{seen: map[string]bool{}}
	agentKeys := id.agent()
	if err := id.addConfigured(k, h, agentKeys); err != nil {
		return nil, "", err
	}
	if !h.OnlyIDs {
		id.addDefaults(k, agentKeys)
	}
	if len(k.tried) == 0 {
		k.tried = append(k.tried, "no key found (no ssh-agent, no ~/.ssh/id_* file, no --identity)")
	}
	return k.signers, strings.Join(k.tried, ", "), nil
}

// addConfigured adds --identity files (which must be usable) and the
// host's IdentityFile entries (skipped when missing, as OpenSSH does); a
// protected key is used through the agent when the agent holds it.
func (id *identities) addConfigured(k *keyList, h hop, agentKeys []ssh.Signer) error {
	for _, p := range append(append([]string{}, id.explicit...), h.Identities...) {
		kf := id.file(p)
		switch {
		case kf.signer != nil:
			k.add(kf.signer)
			k.tried = append(k.tried, p)
		case kf.pub != nil && agentHas(agentKeys, kf.pub) != nil:
			k.add(agentHas(agentKeys, kf.pub))
			k.tried = append(k.tried, p+" (through ssh-agent)")
		case slices.Contains(id.explicit, p):
			return fmt.Errorf("--identity %s: %w", p, kf.err)
		case !errors.Is(kf.err, os.ErrNotExist):
			k.tried = append(k.tried, fmt.Sprintf("%s (unusable: %v)", p, kf.err))
		}
	}
	return nil
}

// addDefaults adds the agent's keys and the usual key files.
func (id *identities) addDefaults(k *keyList, agentKeys []ssh.Signer) {
	for _, s := range agentKeys {
		k.add(s)
	}
	if len(agentKeys) > 0 {
		k.tried = append(k.tried, fmt.Sprintf("%d keys from ssh-agent", len(agentKeys)))
	}
	for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(id.home, ".ssh", name)
		if kf := id.file(p); kf.signer != nil {
			k.add(kf.signer)
			k.tried = append(k.tried, p)
		} else if kf.pub != nil {
			k.tried = append(k.tried, p+" (passphrase-protected and not in ssh-agent)")
		}
	}
}

// file parses a private key file once.
func (id *identities) file(path string) keyFile {
	id.mu.Lock()
	defer id.mu.Unlock()
	if kf, ok := id.files[path]; ok {
		return kf
	}
	kf := parseKeyFile(path)
	if id.files == nil {
		id.files = make(map[string]keyFile)
	}
	id.files[path] = kf
	return kf
}

func parseKeyFile(path string) keyFile {
	data, err := os.ReadFile(path)
	if err != nil {
		return keyFile{err: err}
	}
	signer, err := ssh.ParsePrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		pub := missing.PublicKey
		if pub == nil {
			pub = readPublicKey(path + ".pub")
		}
		return keyFile{pub: pub, err: errors.New("passphrase-protected: load it into ssh-agent")}
	}
	if err != nil {
		return keyFile{err: err}
	}
	// A certificate beside the key (id_ed25519-cert.pub) is offered in
	// its place, as OpenSSH does.
	if cert, ok := readPublicKey(path + "-cert.pub").(*ssh.Certificate); ok {
		if cs, err := ssh.NewCertSigner(cert, signer); err == nil {
			signer = cs
		}
	}
	return keyFile{signer: signer}
}

func readPublicKey(path string) ssh.PublicKey {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		return nil
	}
	return pub
}

func agentHas(keys []ssh.Signer, pub ssh.PublicKey) ssh.Signer {
	for _, s := range keys {
		if bytes.Equal(s.PublicKey().Marshal(), pub.Marshal()) {
			return s
		}
	}
	return nil
}

// agent connects to ssh-agent once and lists its keys. An agent that
// cannot be reached is not an error: the key files may do.
func (id *identities) agent() []ssh.Signer {
	id.agentOnce.Do(func() {
		if id.agentSock == "" {
			return
		}
		conn, err := net.DialTimeout("unix", id.agentSock, 2*time.Second)
		if err != nil {
			id.agentErr = err
			return
		}
		id.agentConn = conn
		id.agentKeys, id.agentErr = agent.NewClient(conn).Signers()
	})
	return id.agentKeys
}

func (id *identities) close() {
	id.agentOnce.Do(func() {}) // no agent connection may start after this
	if id.agentConn != nil {
		id.agentConn.Close()
	}
}
