"""Provably fair dice played through: a turn's seeds committed as it opens, every roll's
dice drawn from them and the roller's seed, the seed revealed as the turn closes, and the
site's verifier recomputing every die (rolls.ledger.fair_dice, rolls.ledger.fair_check)."""

import json
import uuid

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.urls import reverse

from diary import services as diary_services
from diary.models import SessionStatus
from rolls.engine.fair import derive_face, seed_commitment
from rolls.free.services import FreeRoll, roll_make_free
from rolls.ledger import fair_dice, signing
from rolls.ledger.chain import GENESIS_HASH, chain_hash
from rolls.ledger.verify import verify_chain, verify_session
from rolls.models import Roll, SecretRoll, TurnSeed
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import roll_make, secret_roll_reveal
from rolls.systems.ciernie import forms as ciernie_forms
from rolls.systems.q10.forms import make_form as q10_form
from tests.rolling import make_roll
from tests.rolls.ledger.test_ledger import percepcja_request
from tests.rolls.ledger.test_signing import load_script
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.arsmagica.test_panel_arsmagica import data_for, valid_case
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table
from tests.rolls.systems.q10.q10_table import build_q10_table

pytestmark = [pytest.mark.django_db, pytest.mark.fair_dice]

CLIENT_SEED = "c0ffee" * 6


def _case(form_maker, t, mode, fields):
    query = QueryDict(mutable=True)
    for key, value in fields.items():
        query[key] = str(value)
    everyone = list(sheets_in_play(t.session).values())
    context = FormContext(characters=everyone, all_characters=everyone, gm=True, session=t.session)
    form = form_maker(mode, query, context)
    assert form.is_valid(), form.errors
    return form.case()


def roll_in(session, by, case, **kwargs):
    return roll_make(session=session, by=by, case=case, token=uuid.uuid4(), **kwargs).roll


def a_roll_of_each_system(table, make_user):
    """(session, its GM, a roll made with the browser's seed) for the four systems."""
    made = [
        (
            table.session,
            table.gm,
            make_roll(
                table.session, table.gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED
            ).roll,
        )
    ]
    q10 = build_q10_table(make_user)
    case = _case(
        q10_form,
        q10,
        "pool",
        {
            "character": q10.eryk.pk,
            "attribute": q10.sila.pk,
            "skill": q10.atletyka.pk,
            "difficulty": "15",
            "difficulty_value": "",
            "raises": "0",
        },
    )
    made.append((q10.session, q10.gm, roll_in(q10.session, q10.gm, case, client_seed=CLIENT_SEED)))
    ciernie = build_ciernie_table(make_user)
    case = _case(
        ciernie_forms.make_form,
        ciernie,
        "attribute",
        {"character": ciernie.vera.pk, "attribute": ciernie.a["Zręczność"].pk},
    )
    made.append(
        (
            ciernie.session,
            ciernie.gm,
            roll_in(ciernie.session, ciernie.gm, case, client_seed=CLIENT_SEED),
        )
    )
    saga = build_saga(make_user)
    case = valid_case(saga, "stress", data_for(saga))
    made.append(
        (saga.session, saga.gm, roll_in(saga.session, saga.gm, case, client_seed=CLIENT_SEED))
    )
    return made


def test_a_turn_of_every_system_closes_and_every_die_is_recomputed(table, make_user):
    made = a_roll_of_each_system(table, make_user)
    for session, gm, roll in made:
        commit = Roll.objects.get(session=session, seq=1)
        assert commit.record["kind"] == "dice_commit" and commit.post_id is None
        fair = roll.record["fair"]
        assert fair["commit"] == 1 and fair["stream"] == "public"
        assert fair["client_seed"] == CLIENT_SEED and fair["client_seed_by"] == "browser"
        assert [face for _low, _high, face in fair["draws"]] == roll.record["result"]["dice"]
        # Before the turn closes the seed is nobody's: the dice await it.
        report = verify_session(session.pk, recompute=True)
        assert report.ok and (report.dice_recomputed, report.dice_awaiting) == (0, 1)

        diary_services.turn_open_next(session=session, by=gm)

        reveal = Roll.objects.filter(session=session, test="dice_reveal").get()
        seed = reveal.record["dice_reveal"]["seeds"]["public"]
        assert (
            seed_commitment(session=session.pk, turn=1, stream="public", seed=seed)
            == (commit.record["dice_commit"]["public"])
        )
        # Anyone with the record recomputes each die from the seed and the roller's seed.
        for index, (low, high, face) in enumerate(fair["draws"]):
            assert (
                derive_face(
                    seed=seed,
                    session=session.pk,
                    seq=roll.seq,
                    client_seed=CLIENT_SEED,
                    die=index,
                    low=low,
                    high=high,
                )
                == face
            )
        report = verify_session(session.pk, recompute=True)
        assert report.ok, report.problem_label
        assert (report.dice_recomputed, report.dice_awaiting) == (1, 0)
        # The next turn's commitment follows its predecessor's reveal.
        assert TurnSeed.objects.get(session=session, turn_number=2).commit.seq == reveal.seq + 1


def test_without_the_browsers_seed_the_server_draws_one_and_says_so(table):
    roll = make_roll(table.session, table.gm, percepcja_request(table.lirael)).roll
    fair = roll.record["fair"]
    assert fair["client_seed_by"] == "server" and len(fair["client_seed"]) == 32
    # A seed that is not hex from a page is not taken as the roller's.
    roll = make_roll(
        table.session,
        table.gm,
        percepcja_request(table.lirael),
        client_seed="<script>",
        extra_action_reason="drugi",
    ).roll
    assert roll.record["fair"]["client_seed_by"] == "server"


def _rows(session):
    return [
        [r.seq, r.prev_hash, r.hash, r.record, r.key_id, r.signature]
        for r in Roll.objects.filter(session=session).order_by("seq")
    ]


def _rechained(rows):
    """The rows with every hash recomputed: a forger who rewrote the chain (the signatures
    are left out: the dice check must find it on its own)."""
    prev = GENESIS_HASH
    for row in rows:
        row[1], row[2] = prev, chain_hash(prev, row[3])
        prev = row[2]
    return [tuple(row) for row in rows]


@pytest.mark.parametrize("change", ["seed", "client_seed", "die"])
def test_a_changed_seed_client_seed_or_die_is_named(table, change):
    roll = make_roll(
        table.session, table.gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED
    ).roll
    diary_services.turn_open_next(session=table.session, by=table.gm)
    rows = _rows(table.session)
    by_seq = {row[0]: row for row in rows}
    if change == "seed":
        reveal = next(row for row in rows if row[3]["kind"] == "dice_reveal")
        reveal[3]["dice_reveal"]["seeds"]["public"] = "ab" * 32
        expected = (reveal[0], "bad_seed_reveal")
    elif change == "client_seed":
        by_seq[roll.seq][3]["fair"]["client_seed"] = "ab" * 16
        expected = (roll.seq, "unfair_die")
    else:
        draw = by_seq[roll.seq][3]["fair"]["draws"][0]
        draw[2] = draw[2] % 1000 + 1
        expected = (roll.seq, "unfair_die")
    report = verify_chain(_rechained(rows), table.session.pk)
    assert (report.broken_seq, report.problem) == expected


def test_a_secret_roll_stays_sealed_when_its_turns_seed_is_revealed(table):
    session, gm = table.session, table.gm
    secret = make_roll(
        session, gm, percepcja_request(table.lirael), secret=True, client_seed=CLIENT_SEED
    ).roll
    hidden = SecretRoll.objects.get(roll=secret)
    assert hidden.record["fair"]["stream"] == "secret"
    assert "fair" not in secret.record  # the chain shows a commitment only

    diary_services.turn_open_next(session=session, by=gm)
    reveal = Roll.objects.get(session=session, test="dice_reveal")
    assert set(reveal.record["dice_reveal"]["seeds"]) == {"public"}  # the secret stream waits
    report = verify_session(session.pk, recompute=True)
    assert report.ok and report.dice_awaiting == 0  # its draws are not public yet

    # The GM ends the session: the sealed roll is revealed, then the secret seed.
    diary_services.session_transition(session=session, by=gm, to=SessionStatus.FINISHED)
    hidden.refresh_from_db()
    assert hidden.reveal is not None
    seeds = [
        row.record["dice_reveal"]
        for row in Roll.objects.filter(session=session, test="dice_reveal").order_by("seq")
    ]
    assert any("secret" in part["seeds"] for part in seeds)
    assert hidden.reveal.seq < max(
        row.seq for row in Roll.objects.filter(session=session, test="dice_reveal")
    )
    report = verify_session(session.pk, recompute=True)
    assert report.ok, report.problem_label
    assert report.dice_recomputed == 1 and report.dice_awaiting == 0


def test_a_secret_roll_revealed_by_the_gm_frees_its_closed_turns_seed(table):
    session, gm = table.session, table.gm
    secret = make_roll(session, gm, percepcja_request(table.lirael), secret=True).roll
    diary_services.turn_open_next(session=session, by=gm)
    secret_roll_reveal(session=session, by=gm, seq=secret.seq)
    turn_seed = TurnSeed.objects.get(session=session, turn_number=1)
    assert turn_seed.secret_reveal is not None
    report = verify_session(session.pk, recompute=True)
    assert report.ok and report.dice_recomputed == 1


def test_free_rolls_take_the_fair_dice_too(table):
    made = roll_make_free(
        session=table.session,
        by=table.gm,
        free=FreeRoll(expression="3k6!", label="ogień", character_id=None, secret=False),
        token=uuid.uuid4(),
        client_seed=CLIENT_SEED,
    ).roll
    assert [d[2] for d in made.record["fair"]["draws"]] == made.record["result"]["dice"]
    diary_services.turn_open_next(session=table.session, by=table.gm)
    assert verify_session(table.session.pk, recompute=True).dice_recomputed == 1


def test_a_turn_opened_before_seeds_were_committed_rolls_as_before(table):
    with fair_dice.turns_open_unseeded():
        diary_services.turn_open_next(session=table.session, by=table.gm)
    roll = make_roll(table.session, table.gm, percepcja_request(table.lirael)).roll
    assert "fair" not in roll.record
    table.session.refresh_from_db()
    assert table.session.current_turn.number == 2
    assert fair_dice.fair_roll(table.session, table.gm, table.session.current_turn) is None


def test_the_standalone_script_recomputes_the_played_turn_from_the_export(
    table, client_for, tmp_path, capsys
):
    make_roll(table.session, table.gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED)
    secret = make_roll(
        table.session,
        table.gm,
        percepcja_request(table.lirael),
        secret=True,
        extra_action_reason="drugi",
    ).roll
    diary_services.turn_open_next(session=table.session, by=table.gm)
    secret_roll_reveal(session=table.session, by=table.gm, seq=secret.seq)
    exported = client_for(table.gm).get(reverse("rolls:export", args=[table.session.pk]))
    path = tmp_path / "ledger.json"
    path.write_bytes(exported.content)
    script = load_script()
    capsys.readouterr()
    assert script.main([str(path), "--public-key", signing.current_public_key()]) == 0
    printed = capsys.readouterr().out
    assert "dice recomputed from the revealed seeds: 2 rolls" in printed, printed
    report = verify_session(table.session.pk, recompute=True)
    assert (report.dice_recomputed, report.dice_awaiting) == (2, 0)
    call_command("verify_rolls", "--session", str(table.session.pk))
    assert "dice of 2 rolls recomputed from revealed seeds, 0 awaiting" in (capsys.readouterr().out)

    # One die changed in the export: the script names that roll.
    ledger = json.loads(exported.content)
    row = next(r for r in ledger["rolls"] if "fair" in r["record"])
    row["record"]["fair"]["draws"][0][2] = row["record"]["fair"]["draws"][0][2] % 1000 + 1
    path.write_text(json.dumps(ledger), encoding="utf-8")
    assert script.main([str(path)]) == 1
    assert f"#{row['seq']}" in capsys.readouterr().out


def test_every_page_reads_a_session_whose_turns_commit_and_reveal(table, client_for):
    roll = make_roll(table.session, table.gm, percepcja_request(table.lirael)).roll
    diary_services.turn_open_next(session=table.session, by=table.gm)
    pk = table.session.pk
    entries = Roll.objects.filter(session=table.session, post__isnull=True).order_by("seq")
    pages = [reverse("rolls:detail", args=[pk, entry.seq]) for entry in entries]
    pages += [
        reverse("rolls:detail", args=[pk, roll.seq]),
        reverse("rolls:export", args=[pk]),
        reverse("diary:session", args=[pk]),
    ]
    for user in (table.gm, table.alice, table.moderator):
        client = client_for(user)
        for page in pages:
            assert client.get(page).status_code == 200, (user, page)
    audit = client_for(table.moderator).get(reverse("rolls:audit", args=[pk]))
    assert audit.status_code == 200
    assert "Kości sprawdzalne" in audit.content.decode()
    assert "1 rzut przeliczony" in audit.content.decode()
    page = client_for(table.alice).get(reverse("rolls:detail", args=[pk, roll.seq]))
    verifiable = page.content.decode()
    assert 'data-testid="dice-verifiable"' in verifiable and "Kości sprawdzalne" in verifiable
    reveal = entries.get(test="dice_reveal")
    assert reverse("rolls:detail", args=[pk, reveal.seq]) in verifiable


def test_a_rolls_page_says_its_dice_await_the_turns_close(table, client_for):
    roll = make_roll(table.session, table.gm, percepcja_request(table.lirael)).roll
    page = client_for(table.alice).get(reverse("rolls:detail", args=[table.session.pk, roll.seq]))
    text = page.content.decode()
    assert 'data-testid="dice-awaiting"' in text and "dice-verifiable" not in text
    assert "wylosowane przez serwer" in text  # no page seed came with a service-made roll


def _drop_fair(rows, seq):
    del next(row for row in rows if row[0] == seq)[3]["fair"]


def _result_dice_changed(rows, seq):
    dice = next(row for row in rows if row[0] == seq)[3]["result"]["dice"]
    dice[0] = dice[0] % 1000 + 1


def _reveal_dropped(rows, _seq):
    """The closed turn's reveal taken out (and the chain renumbered): its seed never comes
    out, yet the next turn is committed."""
    kept = [row for row in rows if row[3]["kind"] != "dice_reveal"]
    for number, row in enumerate(kept, start=1):
        row[0] = row[3]["seq"] = number
    rows[:] = kept


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (_drop_fair, "unfair_die"),
        (_result_dice_changed, "unfair_die"),
        (_reveal_dropped, "bad_dice_commit"),
    ],
    ids=["fair-part-left-out", "result-not-the-draws", "seed-never-revealed"],
)
def test_a_roll_without_its_fair_dice_or_a_seed_never_revealed_is_named(table, change, problem):
    roll = make_roll(
        table.session, table.gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED
    ).roll
    diary_services.turn_open_next(session=table.session, by=table.gm)
    rows = _rows(table.session)
    change(rows, roll.seq)
    report = verify_chain(_rechained(rows), table.session.pk)
    assert report.problem == problem, report.problem_label
    if problem == "unfair_die":
        assert report.broken_seq == roll.seq
    else:  # named at the next turn's commitment
        assert rows[report.broken_seq - 1][3]["kind"] == "dice_commit"


def test_a_reroll_takes_the_rollers_seed_from_its_page(make_user, client):
    from tests.rolls.systems.ciernie.ciernie_table import flag_reroll_sources
    from tests.rolls.systems.ciernie.test_ciernie_reroll import vera_fails

    ciernie = build_ciernie_table(make_user, roll_policy="players_own")
    flag_reroll_sources()
    first = vera_fails(ciernie)  # a failure given in advance, to be rerolled
    client.force_login(ciernie.alice)
    url = reverse("rolls:reroll", args=[ciernie.session.pk, first.seq])
    assert 'name="client_seed"' in client.get(url).content.decode()
    client.post(url, {"reroll_sources": [f"trait:{ciernie.lucky.pk}"], "client_seed": CLIENT_SEED})
    second = Roll.objects.get(session=ciernie.session, seq=first.seq + 1)
    fair = second.record["fair"]
    assert (fair["client_seed"], fair["client_seed_by"]) == (CLIENT_SEED, "browser")


def test_the_sessions_end_is_a_signed_entry_after_the_reveals_it_makes(table, client_for, tmp_path):
    """Ending the session reveals every sealed secret roll, then every seed still held, then
    chains a `session_end` entry (no post, signed like every row): the export itself says the
    session ended, and that nothing stays sealed after it."""
    import io
    import zipfile

    from rolls.audit.archive import session_archive
    from tests.rolls.audit.test_audit_script import export, run_script

    session, gm = table.session, table.gm
    make_roll(session, gm, percepcja_request(table.lirael), client_seed=CLIENT_SEED)
    make_roll(
        session, gm, percepcja_request(table.lirael), secret=True, extra_action_reason="drugi"
    )
    diary_services.session_transition(session=session, by=gm, to=SessionStatus.FINISHED)
    rows = list(Roll.objects.filter(session=session).order_by("seq"))
    end = rows[-1]
    assert [row.test for row in rows[-3:]] == ["reveal", "dice_reveal", "session_end"]
    assert set(rows[-2].record["dice_reveal"]["seeds"]) == {"public", "secret"}
    assert end.post_id is None and end.signature and end.key_id
    assert end.record["kind"] == "session_end"
    assert end.record["session_end"] == {"status": "finished"}
    assert end.record["turn"] == end.turn_number == 1
    assert verify_session(session.pk, recompute=True).ok

    done = run_script(tmp_path, export(table, client_for))
    assert done.returncode == 0, done.stdout
    assert f"The session ended in #{end.seq}: nothing stays sealed." in done.stdout

    # Every entry of no post reads as what it is, on its page, the audit and the archive:
    # never as a damaged record.
    pk = session.pk
    for row in rows:
        if row.post_id is not None:
            continue
        page = client_for(table.alice).get(reverse("rolls:detail", args=[pk, row.seq]))
        text = page.content.decode()
        assert page.status_code == 200 and 'data-testid="damaged"' not in text, row.test
        assert 'data-testid="entry-text"' in text, row.test
    end_page = client_for(table.alice).get(reverse("rolls:detail", args=[pk, end.seq]))
    assert "Sesja zakończona" in end_page.content.decode()
    audit = client_for(table.moderator).get(reverse("rolls:audit", args=[pk])).content.decode()
    assert 'data-testid="damaged"' not in audit and "Sesja zakończona" in audit
    with zipfile.ZipFile(io.BytesIO(session_archive(table.alice, session))) as files:
        diary = files.read("index.html").decode()
    assert 'data-testid="damaged"' not in diary and "Sesja zakończona" in diary


def test_a_secret_free_rolls_public_stub_names_the_system_its_record_says(table, client_for):
    """The stub says `free` and `notation`, as the revealed record's result does, not the
    session's system: docs/audit.md's secret part names the roll's own system and test."""
    made = roll_make_free(
        session=table.session,
        by=table.gm,
        free=FreeRoll(expression="2k6+1", label="pułapka", character_id=None, secret=True),
        token=uuid.uuid4(),
        client_seed=CLIENT_SEED,
    ).roll
    assert table.session.system == "forum1000"
    stub = made.record["secret"]
    revealed = secret_roll_reveal(session=table.session, by=table.gm, seq=made.seq).roll
    full = revealed.record["reveals"]["record"]
    assert (stub["system"], stub["test"]) == (full["result"]["system"], full["kind"])
    assert (stub["system"], stub["test"]) == ("free", "notation")
    page = client_for(table.alice).get(reverse("rolls:detail", args=[table.session.pk, made.seq]))
    assert "Rzut swobodny" in page.content.decode()
    assert verify_session(table.session.pk, recompute=True).ok
