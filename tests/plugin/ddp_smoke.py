"""A real, tiny DistributedDataParallel job for the Slurm GPU lab test.

Started by contrib/slurm/examples/torchrun.sbatch through torchrun: CPU and
the gloo backend (the lab's GPUs are device files), a linear model trained a
few steps with gradients all-reduced across every rank. Each rank prints one
line the test reads:

    ddp rank R world W local L node NODE sum S

where S is the all-reduced sum of the ranks (W*(W-1)/2 when every rank took
part) and NODE the Slurm node its torchrun ran on.
"""
import os

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        loss = model(torch.randn(4, 8)).pow(2).mean()
        loss.backward()
        optimizer.step()
    total = torch.tensor([float(rank)])
    dist.all_reduce(total)
    print(f"ddp rank {rank} world {world} local {os.environ['LOCAL_RANK']} "
          f"node {os.environ.get('SLURMD_NODENAME', '?')} sum {int(total.item())}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
