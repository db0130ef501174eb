"""A copy server that streams without end, for bench/soak.sh: it takes the
request line of each connection and answers with bytes until the client
hangs up. Runs inside one node's network namespace, where the soak
redirects that node's copy fetches to it."""
import socket
import sys
import threading


def serve(conn):
    with conn:
        try:
            conn.recv(4096)
            chunk = b"x" * 65536
            while True:
                conn.sendall(chunk)
        except OSError:
            pass


def main():
    ln = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ln.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ln.bind(("0.0.0.0", int(sys.argv[1])))
    ln.listen(16)
    while True:
        conn, _ = ln.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
