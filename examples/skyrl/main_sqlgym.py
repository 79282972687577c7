"""SkyRL's entrypoint with the sqlgym environment registered (SkyRL
skyrl-v0.3.0; the pattern of its examples/train/multiply/main_multiply.py).

    PYTHONPATH=integrations/python python3 examples/skyrl/main_sqlgym.py <overrides>
"""

import sys

import ray
from skyrl.train.config import SkyRLTrainConfig
from skyrl.train.entrypoints.main_base import BasePPOExp, validate_cfg
from skyrl.train.utils import initialize_ray

from sqlgym_skyrl import register_sqlgym


@ray.remote(num_cpus=1)
def skyrl_entrypoint(cfg: SkyRLTrainConfig):
    # Registered inside the task that runs training, as SkyRL's examples do.
    register_sqlgym()
    BasePPOExp(cfg).run()


def main() -> None:
    cfg = SkyRLTrainConfig.from_cli_overrides(sys.argv[1:])
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(skyrl_entrypoint.remote(cfg))


if __name__ == "__main__":
    main()
