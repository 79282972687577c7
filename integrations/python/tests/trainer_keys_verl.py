"""verl's configuration keys for the recipe check (see test_trainer_keys_verl.py).

Every Hydra override in a command that runs verl's trainer, in FILES, must
be a key of verl VERSION, recorded here with the file and line it was read
from (verl's generated full config, verl/trainer/config/_generated_ppo_trainer.yaml,
at tag v0.9.0). Updating verl means re-reading those lines.
"""

from override_keys import override_keys

TRAINER = "verl"
VERSION = "0.9.0"

KEYS = {
    "algorithm.adv_estimator": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:809",
    "data.train_files": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:463",
    "data.val_files": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:464",
    "data.train_batch_size": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:471",
    "data.max_prompt_length": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:469",
    "data.max_response_length": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:470",
    "data.return_raw_chat": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:479",
    "actor_rollout_ref.model.path": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:401",
    "actor_rollout_ref.actor.ppo_mini_batch_size": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:65",
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:67",
    "actor_rollout_ref.actor.use_kl_loss": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:91",
    "actor_rollout_ref.actor.optim.lr": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:12",
    "actor_rollout_ref.rollout.name": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:263",
    "actor_rollout_ref.rollout.n": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:299",
    "actor_rollout_ref.rollout.gpu_memory_utilization": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:275",
    "actor_rollout_ref.rollout.tensor_model_parallel_size": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:280",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:294",
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:174",
    "actor_rollout_ref.rollout.multi_turn.format": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:325",
    "actor_rollout_ref.rollout.agent.agent_loop_config_path": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:332",
    "actor_rollout_ref.rollout.agent.num_workers": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:330",
    "reward.custom_reward_function.path": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:729",
    "reward.custom_reward_function.name": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:730",
    "reward.num_workers": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:727",
    "trainer.n_gpus_per_node": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:910",
    "trainer.nnodes": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:909",
    "trainer.total_epochs": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:899",
    "trainer.test_freq": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:917",
    "trainer.val_before_train": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:915",
    "trainer.logger": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:903",
    "trainer.project_name": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:901",
    "trainer.experiment_name": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:902",
    "+ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:994 (ray_init; runtime_env is new, read by verl/trainer/main_ppo.py:62-73)",
    "+ray_kwargs.ray_init.runtime_env.env_vars.SQLGYM_URL": "verl-project/verl@v0.9.0 verl/trainer/config/_generated_ppo_trainer.yaml:994 (ray_init; runtime_env is new, read by verl/trainer/main_ppo.py:62-73)",
}

FILES = [
    "examples/verl/grpo_single_turn.sh",
    "examples/verl/grpo_multi_turn.sh",
    "docs/training.md",
    "docs/agent.md",
    "integrations/python/README.md",
]

_MARKERS = ("verl.trainer.main_ppo",)


def extract(text):
    """The override keys of the commands in text that invoke verl's trainer (python3 -m verl.trainer.main_ppo)."""
    return override_keys(text, _MARKERS)
