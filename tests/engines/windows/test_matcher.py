

def test_a_selection_the_ses_automaton_refuses_is_refused() -> None:
    """Found by the registry's oracle property: `SEQ(A a, A* b[])` with earliest_maximal on two events at one
    time gave {a=1} and {a=2} through the windows, where the selection needs every component bound (the DSL
    refuses the text; a model built in code reached the engine)."""
    from engine.dsl import parse
    from engine.engines.windows.matcher import supports
    from engine.model import Selection

    p = parse("PATTERN SEQ(A a, A* b[]) WHERE skip_till_any_match WITHIN 1")
    p = p.model_copy(update={"selection": Selection.EARLIEST_MAXIMAL})
    assert "needs the SES automaton as A" in (supports(p) or "")
