"""The TRL keys the recipe check accepts (test_recipes.py).

GRPOConfig's fields in TRL v1.9.0 (trl/trainer/grpo_config.py, and the
fields trl/trainer/base_config.py declares on top of
transformers.TrainingArguments), the TrainingArguments fields the recipes
use (cited where TRL's own code reads them), and GRPOTrainer.__init__'s
parameters (trl/trainer/grpo_trainer.py). Keys are "GRPOConfig.<field>" and
"GRPOTrainer.<parameter>". Updating the pinned version means re-reading
those files and updating this table.
"""

import ast
import re

TRAINER = "trl"
VERSION = "1.9.0"

FILES = [
    "examples/trl/grpo_single_turn.py",
    "examples/trl/grpo_multi_turn.py",
    "docs/training.md",
    "docs/agent.md",
    "integrations/python/README.md",
]

KEYS = {
    'GRPOConfig.beta': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:671',
    'GRPOConfig.bf16': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:1817 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.cache_implementation': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:571',
    'GRPOConfig.cast_lm_head_to_fp32': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:454',
    'GRPOConfig.chat_template_kwargs': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:556',
    'GRPOConfig.delta': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:687',
    'GRPOConfig.disable_dropout': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:447',
    'GRPOConfig.do_eval': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:1097 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.ds3_gather_for_generation': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:492',
    'GRPOConfig.entropy_coef': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:866',
    'GRPOConfig.entropy_coef_delta': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:892',
    'GRPOConfig.entropy_coef_max': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:888',
    'GRPOConfig.entropy_coef_min': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:884',
    'GRPOConfig.entropy_target': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:896',
    'GRPOConfig.epsilon': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:683',
    'GRPOConfig.epsilon_high': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:695',
    'GRPOConfig.eval_strategy': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:1097 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.generation_batch_size': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:511',
    'GRPOConfig.generation_kwargs': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:547',
    'GRPOConfig.gradient_accumulation_steps': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:2562 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.gradient_checkpointing': 'huggingface/trl@v1.9.0 trl/trainer/base_config.py:61',
    'GRPOConfig.importance_sampling_level': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:750',
    'GRPOConfig.learning_rate': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:418',
    'GRPOConfig.log_completions': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:972',
    'GRPOConfig.log_completions_hub_repo': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:997',
    'GRPOConfig.log_multimodal': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:979',
    'GRPOConfig.log_unique_prompts': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:990',
    'GRPOConfig.logging_steps': 'huggingface/trl@v1.9.0 trl/trainer/base_config.py:54',
    'GRPOConfig.loss_type': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:791',
    'GRPOConfig.lr_scheduler_kwargs': 'huggingface/trl@v1.9.0 trl/trainer/base_config.py:78',
    'GRPOConfig.mask_truncated_completions': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:826',
    'GRPOConfig.max_completion_length': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:488',
    'GRPOConfig.max_steps': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:853 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.max_tool_calling_iterations': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:907',
    'GRPOConfig.min_p': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:540',
    'GRPOConfig.model_init_kwargs': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:424',
    'GRPOConfig.multi_objective_aggregation': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:767',
    'GRPOConfig.num_completions_to_print': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:986',
    'GRPOConfig.num_generations': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:474',
    'GRPOConfig.num_generations_eval': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:481',
    'GRPOConfig.num_iterations': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:679',
    'GRPOConfig.off_policy_mask_threshold': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:953',
    'GRPOConfig.output_dir': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:1174 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.pad_to_multiple_of': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:505',
    'GRPOConfig.per_device_eval_batch_size': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:2434 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.per_device_train_batch_size': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:2434 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.ref_model_mixup_alpha': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:841',
    'GRPOConfig.ref_model_sync_steps': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:849',
    'GRPOConfig.remove_unused_columns': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:467',
    'GRPOConfig.repetition_penalty': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:563',
    'GRPOConfig.report_to': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:3306 (inherited from transformers.TrainingArguments)',
    'GRPOConfig.reward_weights': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:760',
    'GRPOConfig.router_aux_loss_coef': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:439',
    'GRPOConfig.sapo_temperature_neg': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:704',
    'GRPOConfig.sapo_temperature_pos': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:712',
    'GRPOConfig.scale_rewards': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:779',
    'GRPOConfig.shuffle_dataset': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:501',
    'GRPOConfig.steps_per_generation': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:518',
    'GRPOConfig.sync_ref_model': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:834',
    'GRPOConfig.temperature': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:522',
    'GRPOConfig.top_entropy_quantile': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:856',
    'GRPOConfig.top_k': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:533',
    'GRPOConfig.top_p': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:526',
    'GRPOConfig.torch_empty_cache_steps': 'huggingface/trl@v1.9.0 trl/trainer/base_config.py:97',
    'GRPOConfig.transformers_continuous_batching_config': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:1016',
    'GRPOConfig.trust_remote_code': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:431',
    'GRPOConfig.use_adaptive_entropy': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:876',
    'GRPOConfig.use_bias_correction_kl': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:962',
    'GRPOConfig.use_liger_kernel': 'huggingface/trl@v1.9.0 trl/trainer/base_config.py:90',
    'GRPOConfig.use_transformers_continuous_batching': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:1009',
    'GRPOConfig.use_transformers_paged': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:1022',
    'GRPOConfig.use_vllm': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:577',
    'GRPOConfig.vespo_k_neg': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:735',
    'GRPOConfig.vespo_k_pos': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:720',
    'GRPOConfig.vespo_lambda_neg': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:742',
    'GRPOConfig.vespo_lambda_pos': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:727',
    'GRPOConfig.vllm_enable_sleep_mode': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:602',
    'GRPOConfig.vllm_gpu_memory_utilization': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:646',
    'GRPOConfig.vllm_group_port': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:637',
    'GRPOConfig.vllm_importance_sampling_cap': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:1026',
    'GRPOConfig.vllm_importance_sampling_clip_max': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:937',
    'GRPOConfig.vllm_importance_sampling_clip_min': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:945',
    'GRPOConfig.vllm_importance_sampling_correction': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:915',
    'GRPOConfig.vllm_importance_sampling_mode': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:924',
    'GRPOConfig.vllm_max_model_length': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:654',
    'GRPOConfig.vllm_mode': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:584',
    'GRPOConfig.vllm_model_impl': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:594',
    'GRPOConfig.vllm_server_base_url': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:615',
    'GRPOConfig.vllm_server_host': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:622',
    'GRPOConfig.vllm_server_port': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:626',
    'GRPOConfig.vllm_server_timeout': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:630',
    'GRPOConfig.vllm_structured_outputs_regex': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:609',
    'GRPOConfig.vllm_tensor_parallel_size': 'huggingface/trl@v1.9.0 trl/trainer/grpo_config.py:661',
    'GRPOTrainer.args': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:307',
    'GRPOTrainer.callbacks': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:317',
    'GRPOTrainer.environment_factory': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:323',
    'GRPOTrainer.eval_dataset': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:309',
    'GRPOTrainer.model': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:305',
    'GRPOTrainer.optimizers': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:318',
    'GRPOTrainer.peft_config': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:320',
    'GRPOTrainer.processing_class': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:315',
    'GRPOTrainer.quantization_config': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:319',
    'GRPOTrainer.reward_funcs': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:306',
    'GRPOTrainer.reward_processing_classes': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:316',
    'GRPOTrainer.rollout_func': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:322',
    'GRPOTrainer.tools': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:321',
    'GRPOTrainer.train_dataset': 'huggingface/trl@v1.9.0 trl/trainer/grpo_trainer.py:308',
}

_CALLS = ("GRPOConfig", "GRPOTrainer")
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def _name(func):
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _python_keys(code):
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        # A block the check cannot read is a failure, not a pass.
        return {"<python that does not parse: line %d: %s>" % (e.lineno or 0, e.msg)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in _CALLS:
            for kw in node.keywords:
                found.add("%s.%s" % (_name(node.func), kw.arg if kw.arg else "**"))
    return found


def extract(text):
    """The GRPOConfig and GRPOTrainer keyword arguments a file uses: in a
    Markdown file, those of its python code blocks that call GRPOConfig or
    GRPOTrainer; in a Python file, all of them."""
    if "```" not in text:
        return _python_keys(text)
    found = set()
    for lang, block in _FENCE.findall(text):
        if lang in ("python", "py") and any(c + "(" in block for c in _CALLS):
            found |= _python_keys(block)
    return found
