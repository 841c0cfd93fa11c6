#!/usr/bin/env bash
# Starts Debian's PgBouncer in front of the local PostgreSQL (127.0.0.1:5432), for the tests and benches that run
# Gatehouse behind a pooler. Every database name is passed through, with the client's user name and no password
# (the local server trusts loopback connections).
#
#   scripts/start-pgbouncer.sh PORT [transaction|session] [POOL_SIZE]
#
# It runs in the background until `kill "$(cat /tmp/gatehouse-pgbouncer-PORT/pgbouncer.pid)"`. PgBouncer refuses to
# run as root, so as root it runs as the postgres user.
set -euo pipefail
port="${1:?usage: start-pgbouncer.sh PORT [transaction|session] [POOL_SIZE]}"
mode="${2:-transaction}"
pool_size="${3:-20}"
dir="/tmp/gatehouse-pgbouncer-$port"
mkdir -p "$dir"
printf '"postgres" ""\n' >"$dir/users.txt"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
admin_users = postgres
stats_users = postgres
pool_mode = $mode
default_pool_size = $pool_size
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir"
  run_as=(-u postgres)
else
  run_as=()
fi
if [ -f "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null; then
  kill "$(cat "$dir/pgbouncer.pid")" && sleep 0.5
fi
pgbouncer -d "${run_as[@]}" "$dir/pgbouncer.ini"
for _ in $(seq 1 50); do
  pg_isready -h 127.0.0.1 -p "$port" -q && exit 0
  sleep 0.1
done
echo "PgBouncer did not start on port $port; its log:" >&2
cat "$dir/pgbouncer.log" >&2
exit 1
