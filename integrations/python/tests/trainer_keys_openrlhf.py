"""The OpenRLHF flags the recipe check accepts (test_recipes.py).

Every flag of `python3 -m openrlhf.cli.train_ppo_ray` in OpenRLHF v0.11.0,
with the line of openrlhf/cli/train_ppo_ray.py that declares it
(parser.add_argument; the --actor.* and --critic.* optimiser flags come
from one loop over both prefixes). OpenRLHF renamed every flag to a dotted
name in v0.10.2, so this list also holds for 0.10.2 to 0.11.0. Updating the
pinned version means re-reading that file and updating this table.
"""

import re

TRAINER = "openrlhf"
VERSION = "0.11.0"

FILES = [
    "examples/openrlhf/grpo_single_turn.sh",
    "examples/openrlhf/grpo_multi_turn.sh",
    "docs/training.md",
    "docs/agent.md",
    "integrations/python/README.md",
    "docs/deploy.md",
    "integrations/python/sqlgym_ray.py",
]

KEYS = {
    '--actor.adam.betas': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:466",
    '--actor.adam.eps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:467",
    '--actor.adam.lr': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:465",
    '--actor.adam.weight_decay': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:468",
    '--actor.aux_loss_coef': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:430",
    '--actor.dual_clip': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:389",
    '--actor.entropy_coef': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:432",
    '--actor.eps_clip': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:387",
    '--actor.eps_clip_low_high': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:388",
    '--actor.freeze_visual_encoder': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:574",
    '--actor.gradient_checkpointing_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:309",
    '--actor.gradient_checkpointing_reentrant': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:339",
    '--actor.lr_scheduler': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:470",
    '--actor.lr_warmup_ratio': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:471",
    '--actor.max_norm': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:474",
    '--actor.min_lr_ratio': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:472",
    '--actor.model_name_or_path': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:517",
    '--actor.muon.lr': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:451",
    '--actor.muon.momentum': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:456",
    '--actor.muon.nesterov': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:462",
    '--actor.muon.no_nesterov': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:463",
    '--actor.muon.ns_steps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:460",
    '--actor.num_gpus_per_node': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:214",
    '--actor.num_nodes': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:213",
    '--actor.optim': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:448",
    '--actor.policy_loss_type': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:420",
    '--algo.advantage.estimator': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:478",
    '--algo.advantage.gamma': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:392",
    '--algo.advantage.is_correction_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:257",
    '--algo.advantage.is_correction_threshold': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:259",
    '--algo.advantage.is_correction_type': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:266",
    '--algo.advantage.lambd': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:391",
    '--algo.advantage.no_std_norm': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:488",
    '--algo.dynamic_filtering_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:562",
    '--algo.dynamic_filtering_range': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:565",
    '--algo.kl.estimator': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:422",
    '--algo.kl.horizon': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:418",
    '--algo.kl.init_coef': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:419",
    '--algo.kl.target': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:417",
    '--algo.kl.use_loss': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:485",
    '--ckpt.best_metric_key': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:296",
    '--ckpt.disable_ds': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:291",
    '--ckpt.load_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:294",
    '--ckpt.max_mem': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:293",
    '--ckpt.max_num': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:292",
    '--ckpt.output_dir': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:371",
    '--ckpt.path': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:289",
    '--ckpt.save_hf': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:290",
    '--ckpt.save_steps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:287",
    '--critic.adam.betas': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:466",
    '--critic.adam.eps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:467",
    '--critic.adam.lr': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:465",
    '--critic.adam.weight_decay': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:468",
    '--critic.freezing_steps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:408",
    '--critic.lr_scheduler': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:470",
    '--critic.lr_warmup_ratio': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:471",
    '--critic.max_norm': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:474",
    '--critic.min_lr_ratio': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:472",
    '--critic.model_name_or_path': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:520",
    '--critic.muon.lr': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:451",
    '--critic.muon.momentum': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:456",
    '--critic.muon.nesterov': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:462",
    '--critic.muon.no_nesterov': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:463",
    '--critic.muon.ns_steps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:460",
    '--critic.num_gpus_per_node': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:216",
    '--critic.num_nodes': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:215",
    '--critic.optim': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:448",
    '--critic.save_value_network': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:416",
    '--critic.value_clip': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:390",
    '--data.apply_chat_template': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:546",
    '--data.dataloader_num_workers': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:342",
    '--data.disable_fast_tokenizer': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:340",
    '--data.image_key': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:569",
    '--data.input_key': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:542",
    '--data.input_template': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:544",
    '--data.label_key': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:543",
    '--data.max_images_per_prompt': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:571",
    '--data.max_len': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:379",
    '--data.max_samples': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:386",
    '--data.prompt_dataset': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:527",
    '--data.prompt_probs': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:529",
    '--data.prompt_split': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:534",
    '--ds.adam_offload': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:322",
    '--ds.attn_implementation': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:324",
    '--ds.deepcompile': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:310",
    '--ds.enable_sleep': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:348",
    '--ds.experts_implementation': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:330",
    '--ds.grad_accum_dtype': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:337",
    '--ds.load_in_4bit': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:364",
    '--ds.lora.alpha': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:366",
    '--ds.lora.dropout': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:368",
    '--ds.lora.rank': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:365",
    '--ds.lora.target_modules': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:367",
    '--ds.overlap_comm': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:338",
    '--ds.packing_samples': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:356",
    '--ds.param_dtype': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:312",
    '--ds.ring_attn_head_stride': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:508",
    '--ds.ring_attn_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:506",
    '--ds.tensor_parallel_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:353",
    '--ds.use_liger_kernel': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:336",
    '--ds.use_universal_ckpt': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:303",
    '--ds.value_head_prefix': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:521",
    '--ds.zero_stage': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:308",
    '--ds.zpg': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:321",
    '--eval.dataset': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:535",
    '--eval.n_samples_per_prompt': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:539",
    '--eval.split': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:536",
    '--eval.steps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:286",
    '--eval.temperature': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:537",
    '--local_rank': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:307",
    '--logger.logging_steps': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:288",
    '--logger.tensorboard_dir': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:581",
    '--logger.wandb.group': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:552",
    '--logger.wandb.key': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:550",
    '--logger.wandb.org': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:551",
    '--logger.wandb.project': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:553",
    '--logger.wandb.run_name': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:555",
    '--ref.num_gpus_per_node': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:201",
    '--ref.num_nodes': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:200",
    '--ref.offload': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:522",
    '--reward.clip_range': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:437",
    '--reward.model_name_or_path': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:518",
    '--reward.normalize_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:396",
    '--reward.num_gpus_per_node': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:204",
    '--reward.num_nodes': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:202",
    '--reward.offload': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:523",
    '--reward.overlong_buffer_len': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:494",
    '--reward.overlong_penalty_factor': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:496",
    '--reward.remote_url': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:519",
    '--reward.stop_properly_penalty_coef': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:498",
    '--rollout.batch_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:373",
    '--rollout.max_new_tokens': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:381",
    '--rollout.max_tokens_per_gpu': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:360",
    '--rollout.micro_batch_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:377",
    '--rollout.n_samples_per_prompt': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:414",
    '--rollout.temperature': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:399",
    '--rollout.top_p': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:398",
    '--rollout.vllm_generate_batch_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:375",
    '--train.agent_func_path': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:524",
    '--train.async_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:274",
    '--train.async_queue_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:275",
    '--train.batch_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:394",
    '--train.colocate_actor_ref': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:207",
    '--train.colocate_all': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:224",
    '--train.colocate_critic_reward': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:218",
    '--train.dynamic_batch_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:359",
    '--train.ema_beta': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:320",
    '--train.enable_ema': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:319",
    '--train.full_determinism_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:402",
    '--train.max_epochs': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:378",
    '--train.max_tokens_per_gpu': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:361",
    '--train.micro_batch_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:393",
    '--train.num_episodes': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:372",
    '--train.partial_rollout_enable': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:277",
    '--train.seed': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:400",
    '--use_ms': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:586",
    '--vllm.enable_prefix_caching': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:242",
    '--vllm.enable_sleep': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:245",
    '--vllm.enforce_eager': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:243",
    '--vllm.gpu_memory_utilization': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:251",
    '--vllm.num_engines': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:232",
    '--vllm.sync_backend': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:240",
    '--vllm.sync_with_ray': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:241",
    '--vllm.tensor_parallel_size': "OpenRLHF/OpenRLHF@v0.11.0 openrlhf/cli/train_ppo_ray.py:235",
}

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_ARRAY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=\((.*?)^\s*\)", re.S | re.M)
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w.-]*)")
_LAUNCH = "openrlhf.cli.train_ppo_ray"


def _uncomment(text):
    return "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in text.split("\n"))


def _commands(text):
    """Shell text as logical lines: backslash continuations joined."""
    return _uncomment(text).replace("\\\n", " ").split("\n")


def _script_flags(text):
    """The flags given to train_ppo_ray in shell text: on the line that
    launches it (continuations joined) and in the bash arrays that line
    expands (${NAME[@]})."""
    arrays = {m.group(1): _uncomment(m.group(2)) for m in _ARRAY.finditer(text)}
    found = set()
    for line in _commands(text):
        if _LAUNCH not in line:
            continue
        args = line.split(_LAUNCH, 1)[1]
        for name in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\}", args):
            args += " " + arrays.get(name, "--undefined-array-" + name)
        found |= {f.split("=", 1)[0] for f in _FLAG.findall(args)}
    return found


# In prose an OpenRLHF flag is told from sqlgym's own (--max-turns,
# --eval-holdout: hyphens only) by its shape: OpenRLHF's flags are dotted
# from 0.10.2 on, and the ones it removed were snake_case (--remote_rm_url).
_PROSE_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9]*(?:[._][a-z0-9]+)+)")


def _prose_flags(text):
    """OpenRLHF-shaped flags named anywhere outside launch blocks (prose,
    inline code, comments, docstrings), so a renamed flag cannot survive in
    a sentence."""
    return set(_PROSE_FLAG.findall(text))


def extract(text):
    """The OpenRLHF flags a file uses: in a Markdown file, those of its code
    blocks that launch openrlhf.cli.train_ppo_ray; in a script, those of its
    launch line; and, in the rest, every OpenRLHF-shaped flag of the prose."""
    blocks = _FENCE.findall(text) if "```" in text else [text]
    found = set()
    rest = text
    for block in blocks:
        if _LAUNCH in block:
            found |= _script_flags(block)
            rest = rest.replace(block, "")
    return found | _prose_flags(rest)
