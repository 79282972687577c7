"""SkyRL's configuration keys for the recipe check (see test_trainer_keys_verl.py).

Every override in a command that runs SkyRL's trainer (its main_base
entrypoint, or examples/skyrl/main_sqlgym.py, which wraps it), in FILES,
must be a field of SkyRL VERSION's config dataclasses, recorded here with
the line it was read from (skyrl/train/config/config.py at tag
skyrl-v0.3.0). Updating SkyRL means re-reading those lines.
"""

from override_keys import override_keys

TRAINER = "skyrl"
VERSION = "skyrl-v0.3.0"

KEYS = {
    "data.train_data": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:69",
    "data.val_data": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:70",
    "trainer.algorithm.advantage_estimator": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:597",
    "trainer.policy.model.path": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:139",
    "trainer.placement.colocate_all": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:418",
    "trainer.strategy": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:908",
    "trainer.placement.policy_num_gpus_per_node": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:426",
    "trainer.placement.ref_num_gpus_per_node": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:430",
    "generator.inference_engine.num_engines": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:742",
    "generator.inference_engine.tensor_parallel_size": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:748",
    "generator.inference_engine.backend": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:743",
    "generator.inference_engine.run_engines_locally": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:741",
    "trainer.epochs": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:932",
    "trainer.train_batch_size": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:938",
    "trainer.policy_mini_batch_size": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:940",
    "trainer.micro_forward_batch_size_per_gpu": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:943",
    "trainer.micro_train_batch_size_per_gpu": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:942",
    "trainer.max_prompt_length": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:968",
    "generator.max_input_length": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:816",
    "generator.sampling_params.max_generate_length": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:713",
    "generator.sampling_params.stop": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:720",
    "generator.eval_sampling_params.stop": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:720",
    "generator.n_samples_per_prompt": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:813",
    "generator.max_turns": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:815",
    "generator.use_conversation_multi_turn": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:822",
    "generator.batched": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:814",
    "generator.apply_overlong_filtering": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:838",
    "environment.env_class": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:878",
    "trainer.eval_before_train": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:965",
    "trainer.eval_interval": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:966",
    "trainer.logger": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:973",
    "trainer.project_name": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:971",
    "trainer.run_name": "NovaSky-AI/SkyRL@skyrl-v0.3.0 skyrl/train/config/config.py:972",
}

FILES = [
    "examples/skyrl/grpo_multi_turn.sh",
    "docs/training.md",
    "docs/agent.md",
]

_MARKERS = ("main_sqlgym.py", "skyrl.train.entrypoints")


def extract(text):
    """The override keys of the commands in text that invoke SkyRL's trainer."""
    return override_keys(text, _MARKERS)
