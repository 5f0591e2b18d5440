#!/usr/bin/env bash
# spyglass-cli power (or spmv, svd, invert) with one process per GPU over the nodes of a Slurm job
# (docs/scale.md, "On a cluster"). For power and spmv every task reads only its rows of MATRIX, so
# MATRIX must be a plain .mtx file on a file system every node sees; svd and invert generate their
# batch, each task its share.
#
#   sbatch scripts/slurm-power.sh /shared/matrices/big.mtx [power options, e.g. --iterations 200 --stats]
#   sbatch --nodes=4 --gpus-per-node=8 --ntasks-per-node=8 scripts/slurm-power.sh /shared/big.mtx
#   sbatch scripts/slurm-power.sh spmv /shared/big.mtx --format csr --backend cusparse --out /shared/y.txt --time
#   sbatch scripts/slurm-power.sh svd --n 32 --batch 4000000 --backend cuda
#   sbatch scripts/slurm-power.sh invert --n 16 --batch 10000000 --backend cuda
#
# Environment (optional): SPYGLASS_CLI (the program; default spyglass-cli on PATH),
# SPYGLASS_RENDEZVOUS (default tcp on the first node; file:/shared/scratch/spyglass-rv for a shared
# path instead), SPYGLASS_PORT (the tcp port; default 20000 + job id mod 20000), and NCCL's own
# variables (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, ...), which srun passes on to every task.
#SBATCH --job-name=spyglass-power
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=4
#SBATCH --time=00:30:00
#SBATCH --output=spyglass-power-%j.out
set -euo pipefail

# The command: power unless the first argument names another one (so older job lines still work).
case ${1:-} in
  power | spmv | svd | invert) command=$1; shift ;;
  *) command=power ;;
esac
if [[ $command == power || $command == spmv ]]; then
  : "${1:?usage: sbatch scripts/slurm-power.sh [power|spmv] MATRIX.mtx [options] | svd|invert [options]}"
fi
cli=${SPYGLASS_CLI:-spyglass-cli}

# Rank 0 runs on the first node of the allocation (srun numbers tasks node by node), so its host is
# where the others connect. The port is derived from the job id so that two jobs sharing a node do
# not collide; it must not be NCCL's or another service's.
first=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
port=${SPYGLASS_PORT:-$((20000 + SLURM_JOB_ID % 20000))}
rendezvous=${SPYGLASS_RENDEZVOUS:-tcp:$first:$port}

# NCCL's warnings (and, with NCCL_DEBUG=INFO, the transport it chose: NET/IB or NET/Socket) go to the
# job's output.
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

echo "spyglass $command: $SLURM_NTASKS tasks on $SLURM_JOB_NUM_NODES nodes ($SLURM_JOB_NODELIST), rendezvous $rendezvous" >&2
# One task per GPU: each reads SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID (its GPU is the local id
# modulo the GPUs it sees) and the run id SLURM_JOB_ID. --kill-on-bad-exit: a rank that fails stops
# the others instead of leaving them waiting in a collective.
exec srun --kill-on-bad-exit=1 "$cli" "$command" "$@" --rendezvous "$rendezvous" --rendezvous-timeout 600
