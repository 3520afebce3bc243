"""The frozen Backgammon state: ``evolve`` is ``dataclasses.replace``, made cheaper.

``evolve`` copies the field values into a new object instead of calling ``__init__``;
that gives the same state only while the class keeps the three properties pinned here.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from door.games.backgammon.position import BackgammonState, Phase

CHANGES = st.fixed_dictionaries(
    {},
    optional={
        "turn": st.integers(0, 1),
        "phase": st.sampled_from(list(Phase)),
        "dice": st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)),
        "cube": st.sampled_from([1, 2, 4, 64]),
        "cube_owner": st.none() | st.integers(0, 1),
        "score": st.tuples(st.integers(0, 9), st.integers(0, 9)),
        "beavered": st.booleans(),
    },
)


@given(CHANGES)
@settings(max_examples=50, deadline=None)
def test_evolve_gives_the_state_dataclasses_replace_gives(changes: dict[str, object]) -> None:
    state = BackgammonState(turn=1, cube=2)
    evolved = state.evolve(**changes)
    replaced = dataclasses.replace(state, **changes)  # type: ignore[arg-type]
    assert evolved == replaced
    assert evolved.__dict__ == replaced.__dict__
    assert type(evolved) is BackgammonState


def test_evolve_leaves_the_original_state_as_it_was() -> None:
    state = BackgammonState()
    state.evolve(turn=1, cube=4)
    assert state == BackgammonState()


def test_the_state_has_no_post_init_for_evolve_to_skip() -> None:
    assert not hasattr(BackgammonState, "__post_init__")


def test_every_field_of_the_state_is_an_init_field() -> None:
    assert all(f.init for f in dataclasses.fields(BackgammonState))


def test_the_state_keeps_its_fields_in_its_dict_not_in_slots() -> None:
    assert not hasattr(BackgammonState, "__slots__")
    assert set(BackgammonState().__dict__) == {f.name for f in dataclasses.fields(BackgammonState)}
