# slurm_conf FILE DIR CTLD_NAME CTLD_ADDR NODE_ADDR...: writes a slurm.conf for a
# throwaway test cluster (sourced; bash). Auth none, root as SlurmUser, free ports
# above 20000, state and logs in DIR; one node per NODE_ADDR ("name=address",
# 2 CPUs each) in one partition that takes up to 4 tasks per CPU. Each slurmd's
# spool, pid and log files are DIR/slurmd.<node>* (Slurm puts the node's name for
# %n), so one conf serves every node.
# Start `slurmctld -D -f FILE` and `slurmd -D -f FILE [-N name]` in the
# background and stop them by pid.
slurm_conf() {
  local file=$1 dir=$2 ctld=$3 ctld_addr=$4 port n names=()
  shift 4
  port=$((20000 + RANDOM % 20000))
  mkdir -p "$dir/state"
  {
    cat <<CONF
ClusterName=chorustest
SlurmctldHost=$ctld($ctld_addr)
AuthType=auth/none
CredType=cred/none
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/slurmd.%n
SlurmctldPidFile=$dir/ctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/ctld.log
SlurmdLogFile=$dir/slurmd.%n.log
ReturnToService=2
CONF
    for n in "$@"; do
      echo "NodeName=${n%%=*} NodeAddr=${n#*=} CPUs=2 RealMemory=1000"
      names+=("${n%%=*}")
    done
    local IFS=,
    echo "PartitionName=test Nodes=${names[*]} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
  } >"$file"
}
