-- pgbench: the per-session chain append the ledger makes, in plain SQL (bench/http_bench.py):
-- lock the session's head row, insert the roll with seq + 1 and its hash over the previous
-- one, move the head. :heads is 1 (one session) or 8 (spread).
\set s random(1, :heads)
BEGIN;
SELECT seq + 1 AS next FROM bench_chain_head WHERE id = :s FOR UPDATE \gset
INSERT INTO bench_chain_roll (head_id, seq, prev_hash, hash, record)
  SELECT id, :next, hash,
         encode(sha256(convert_to(hash || :next || '{"dice":[3,7],"threshold":55}', 'UTF8')), 'hex'),
         '{"dice":[3,7],"threshold":55}'
  FROM bench_chain_head WHERE id = :s;
UPDATE bench_chain_head
  SET seq = :next, hash = (SELECT hash FROM bench_chain_roll WHERE head_id = :s AND seq = :next)
  WHERE id = :s;
END;
