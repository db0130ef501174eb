# files.sh - the per-run keys and configuration files. Sourced by cluster.sh.
# shellcheck shell=bash

# write_files makes every file of one run under DIR: a client key, a host key
# and sshd_config per node, known_hosts, ssh_config, the node list, the
# /etc/hosts the nodes see, and env. On a loaded machine each process costs
# milliseconds, so the per-node files are written by bash itself and the
# directories are made in one go.
write_files() {
	local dir=$1 n=$2 p=$3 net=$4 k node ip client homes=() nds=()
	for ((k = 1; k <= n; k++)); do
		nds+=("$dir/nodes/node$k")
		homes+=("$dir/home/node$k" "$dir/home/node$k/.ssh")
	done
	mkdir -p "${nds[@]}" "${homes[@]}"
	chmod 0700 "${homes[@]}"
	rm -f "$dir/id_ed25519" "$dir/id_ed25519.pub"
	ssh-keygen -q -t ed25519 -N '' -C "cluster-client-$p" -f "$dir/id_ed25519" ||
		die "could not generate the client key"
	read -r client <"$dir/id_ed25519.pub"
	host_keys "$dir" "$n"
	: >"$dir/known_hosts"
	: >"$dir/hosts"
	printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%s.1 head\n' \
		"$net" >"$dir/etc_hosts"
	for ((k = 1; k <= n; k++)); do
		node=node$k
		ip=$net.$((10 + k))
		write_node "$dir" "$node" "$ip" "$client"
		printf '%s\n' "$node" >>"$dir/hosts"
		printf '%s %s\n' "$ip" "$node" >>"$dir/etc_hosts"
	done
	chmod 0600 "$dir"/home/node*/.ssh/authorized_keys
	[[ -z ${CLUSTER_USER:-} ]] || user_homes "$dir" "$n" "$client"
	write_ssh_config "$dir" "$n" "$net"
	write_env "$dir" "$n" "$p" "$net"
}

# user_homes makes the unprivileged user's home for each node, owned by the
# user, accepting the run's client key.
user_homes() {
	local dir=$1 n=$2 client=$3 k dirs=()
	for ((k = 1; k <= n; k++)); do
		dirs+=("$dir/userhome/node$k/.ssh")
	done
	mkdir -p "${dirs[@]}"
	for ((k = 1; k <= n; k++)); do
		printf '%s\n' "$client" >"$dir/userhome/node$k/.ssh/authorized_keys"
	done
	chmod 0700 "$dir"/userhome/node*/.ssh
	chmod 0600 "$dir"/userhome/node*/.ssh/authorized_keys
	chown -R "$CLUSTER_USER:" "$dir/userhome"
}

# host_keys generates every node's host key, in parallel: one ssh-keygen
# per node is most of the cost of writing the files.
host_keys() {
	local dir=$1 n=$2 k nd jobs=()
	for ((k = 1; k <= n; k++)); do
		nd=$dir/nodes/node$k
		rm -f "$nd/ssh_host_ed25519_key" "$nd/ssh_host_ed25519_key.pub" "$nd/sshd.pid"
		ssh-keygen -q -t ed25519 -N '' -C "node$k" -f "$nd/ssh_host_ed25519_key" &
		jobs+=("$!")
	done
	for ((k = 1; k <= n; k++)); do
		wait "${jobs[k - 1]}" || die "could not generate the host key of node$k"
	done
}

# write_node writes a node's known_hosts line, its authorized_keys (only
# this run's client key) and its sshd_config.
write_node() {
	local dir=$1 node=$2 ip=$3 client=$4 nd=$1/nodes/$2 type key
	read -r type key _ <"$nd/ssh_host_ed25519_key.pub"
	# One line under both names: OpenSSH looks the key up by HostName (the
	# IP), a client given the bare node name looks it up by that name.
	printf '%s,%s %s %s\n' "$node" "$ip" "$type" "$key" >>"$dir/known_hosts"
	printf '%s\n' "$client" >"$dir/home/$node/.ssh/authorized_keys"
	# No AcceptEnv: a session sees only what sshd sets, as on a real node.
	printf '%s\n' >"$nd/sshd_config" \
		"Port 22" \
		"ListenAddress $ip" \
		"AddressFamily inet" \
		"HostKey $nd/ssh_host_ed25519_key" \
		"PidFile $nd/sshd.pid" \
		"AuthorizedKeysFile .ssh/authorized_keys" \
		"PermitRootLogin prohibit-password" \
		"PubkeyAuthentication yes" \
		"PasswordAuthentication no" \
		"KbdInteractiveAuthentication no" \
		"UsePAM no" \
		"StrictModes no" \
		"UseDNS no" \
		"PrintMotd no" \
		"PrintLastLog no" \
		"MaxStartups 100:30:200" \
		"MaxSessions 64" \
		"Subsystem sftp internal-sftp" \
		"LogLevel VERBOSE"
}

# write_ssh_config pins every node's address and this run's key and
# known_hosts. OpenSSH takes the first value it finds for each keyword, so
# the per-node HostName blocks may come before the shared block. The key
# exchange is curve25519, the one golang.org/x/crypto/ssh uses, so OpenSSH
# clients (pdsh) and the launcher pay the same handshake cost; OpenSSH 9.2's
# default hybrid exchange costs several times more CPU.
write_ssh_config() {
	local dir=$1 n=$2 net=$3 k
	{
		for ((k = 1; k <= n; k++)); do
			printf 'Host node%d\n    HostName %s.%d\n' "$k" "$net" $((10 + k))
		done
		cat <<-EOF
			Host node*
			    User root
			    Port 22
			    IdentityFile $dir/id_ed25519
			    IdentitiesOnly yes
			    UserKnownHostsFile $dir/known_hosts
			    GlobalKnownHostsFile /dev/null
			    StrictHostKeyChecking yes
			    CheckHostIP no
			    BatchMode yes
			    ForwardAgent no
			    ForwardX11 no
			    KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
		EOF
	} >"$dir/ssh_config"
}

# write_env records the cluster's facts as shell assignments. Every value
# is free of quotes and spaces except the lists, so single quotes suffice.
write_env() {
	local dir=$1 n=$2 p=$3 net=$4 k nodes=() ips=()
	for ((k = 1; k <= n; k++)); do
		nodes+=("node$k")
		ips+=("$net.$((10 + k))")
	done
	cat >"$dir/env.tmp" <<-EOF
		CLUSTER_DIR='$dir'
		CLUSTER_PREFIX='$p'
		CLUSTER_N='$n'
		CLUSTER_NODES='${nodes[*]}'
		CLUSTER_IPS='${ips[*]}'
		CLUSTER_HEAD_NS='${p}head'
		CLUSTER_HEAD_IP='$net.1'
		CLUSTER_FABRIC_NS='${p}fab'
		CLUSTER_SUBNET='$net.0/24'
		CLUSTER_SSH_CONFIG='$dir/ssh_config'
		CLUSTER_KNOWN_HOSTS='$dir/known_hosts'
		CLUSTER_IDENTITY='$dir/id_ed25519'
		CLUSTER_HOSTS_FILE='$dir/hosts'
		CLUSTER_USER='${CLUSTER_USER:-}'
		CLUSTER_USER_HOME='${CLUSTER_USER_HOME:-}'
	EOF
	mv "$dir/env.tmp" "$dir/env"
}
