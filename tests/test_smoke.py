def test_settings_language_is_polish(settings):
    assert settings.LANGUAGE_CODE == "pl"
