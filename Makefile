# The README's two commands: `make run` and `make test`.
# Production: `make serve` (README.md, docs/deploy.md).
.PHONY: run serve verify test ci lint format migrations-check messages demo bench bench-http bench-queries

run:  ## set up (.venv, SQLite, demo data) and serve http://127.0.0.1:8000/
	scripts/venv requirements.txt
	DEBUG=1 .venv/bin/python manage.py migrate --no-input
	DEBUG=1 .venv/bin/python manage.py seed_demo
	@# The task worker beside the server sends the e-mails, to the console here; every
	@# minute the periodic commands open the turns that are due and tell of near deadlines.
	export DEBUG=1 EMAIL_BACKEND=$${EMAIL_BACKEND:-django.core.mail.backends.console.EmailBackend}; \
	  .venv/bin/python manage.py db_worker --no-reload & worker=$$!; \
	  ( while sleep 60; do \
	      .venv/bin/python manage.py advance_turns --verbosity 0 >/dev/null; \
	      .venv/bin/python manage.py notify_deadlines --verbosity 0 >/dev/null; \
	    done ) & ticker=$$!; \
	  trap 'kill $$worker $$ticker 2>/dev/null' EXIT INT TERM; \
	  LOG_LEVEL=$${LOG_LEVEL:-INFO} .venv/bin/python manage.py runserver 127.0.0.1:8000

serve:  ## production: migrate, collectstatic, gunicorn on $$BIND (settings from the environment)
	scripts/serve

verify:  ## verify every session's roll chain (exit 1 on any break)
	scripts/manage verify_rolls

test:  ## everything CI checks: ruff, stylelint, import contracts, migrations, vectors, tests on PostgreSQL and SQLite
	scripts/test

ci: test

lint:
	scripts/venv requirements-dev.txt
	scripts/ensure-stylelint
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports
	node_modules/.bin/stylelint "static/**/*.css"

format:
	.venv/bin/ruff check --fix . && .venv/bin/ruff format .

migrations-check:
	DATABASE_URL=sqlite:///:memory: SECRET_KEY=x .venv/bin/python manage.py makemigrations --check --dry-run

messages:  ## refresh the Polish catalogue after changing UI strings, then compile it
	DEBUG=1 .venv/bin/python manage.py makemessages -l pl --no-obsolete --ignore=.venv --ignore=bench --ignore=tests
	DEBUG=1 .venv/bin/python manage.py compilemessages -l pl --ignore=.venv

bench:  ## the rules engine's benchmark (docs/performance.md)
	.venv/bin/python bench/engine_bench.py

bench-http:  ## the HTTP benchmark on a throwaway PostgreSQL of its own (ARGS="--quick": 2 minutes)
	SECRET_KEY=$${SECRET_KEY:-bench} .venv/bin/python bench/http_bench.py $(ARGS)

bench-queries:  ## SQL queries per roll-path request (docs/performance.md): SQLite, then a throwaway PostgreSQL
	.venv/bin/python bench/roll_queries.py $(ARGS)
	scripts/with-postgres .venv/bin/python bench/roll_queries.py $(ARGS)
