-- Template segments of the matched candidates' bodies and model texts.
-- Parameters: $rule_ids, a list of rule ids. Result: rule_id, part (body | model_text), pos, kind, text,
-- var, default_value, max_tokens, action — ordered for rendering.
SELECT r.rule_id,
       CASE WHEN t.template_id = r.body_template THEN 'body' ELSE 'model_text' END AS part,
       t.pos, t.kind, t.text, t.var, t.default_value, r.max_tokens, r.action
FROM rules r
JOIN templates t ON t.template_id IN (r.body_template, r.model_text_template)
WHERE list_contains($rule_ids, r.rule_id)
ORDER BY r.rule_id, part, t.pos;
