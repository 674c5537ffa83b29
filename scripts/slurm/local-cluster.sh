#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (as root): munge, slurmctld and slurmd with a
# minimal slurm.conf (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no cgroups), for
# testing the Slurm recipe (tests/slurm.rs) in CI or in a container. Installs Debian's slurm-wlm
# and munge if they are missing. Idempotent: a running cluster is left as it is.
# Usage: scripts/slurm/local-cluster.sh [start|stop]
set -euo pipefail
action=${1:-start}
if [ "$(id -u)" != 0 ]; then
  echo "local-cluster.sh: run as root (it starts system daemons)" >&2
  exit 1
fi
if [ "$action" = stop ]; then
  pkill -x slurmd || true
  pkill -x slurmctld || true
  pkill -x munged || true
  exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
if sinfo -h >/dev/null 2>&1; then
  exit 0
fi
node=$(hostname -s)
cpus=$(nproc)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=arena-ci
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobRequeue=1
KillWait=10
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
chown -R munge:munge /etc/munge /run/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c "munged" 2>/dev/null || munged --force
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 1 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE 'idle|mixed|alloc'; then
    echo "local-cluster.sh: one-node Slurm cluster up ($node, $cpus CPUs)"
    exit 0
  fi
  sleep 1
done
echo "local-cluster.sh: the cluster did not come up; see /var/log/slurm/" >&2
sinfo >&2 || true
exit 1
