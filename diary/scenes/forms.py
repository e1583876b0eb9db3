"""The scenes page's forms: a new scene, a scene renamed or closed, a character moved. Each
names the scene and the character by the choices the page offered; another value is refused
next to its field."""

from django import forms
from django.utils.translation import gettext_lazy as _

from config.text import SingleLineCharField
from diary.models import SCENE_NAME_MAX
from diary.scenes.selectors import MAIN, main_scene_name

ACTIONS = ("create", "rename", "close", "move")


def _name_field():
    return SingleLineCharField(
        label=_("Scene's name"),
        max_length=SCENE_NAME_MAX,
        error_messages={"required": _("Give the scene a name.")},
        help_text=_("E.g. “W lochach”, “Na zamku”."),
    )


class SceneCreateForm(forms.Form):
    action = forms.CharField(widget=forms.HiddenInput, initial="create")
    name = _name_field()


def _scene_choices(scenes, *, main: bool) -> list[tuple[str, str]]:
    choices = [(str(MAIN), main_scene_name())] if main else []
    return choices + [(str(scene.pk), scene.name) for scene in scenes]


class _SceneChoiceForm(forms.Form):
    scene = forms.TypedChoiceField(
        label=_("Scene"),
        coerce=int,
        error_messages={
            "required": _("Choose a scene."),
            "invalid_choice": _("Choose one of the session's scenes."),
        },
    )

    def __init__(self, *args, scenes, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scene"].choices = _scene_choices(scenes, main=False)


class SceneRenameForm(_SceneChoiceForm):
    action = forms.CharField(widget=forms.HiddenInput, initial="rename")
    name = _name_field()


class SceneCloseForm(_SceneChoiceForm):
    action = forms.CharField(widget=forms.HiddenInput, initial="close")


class SceneMoveForm(forms.Form):
    action = forms.CharField(widget=forms.HiddenInput, initial="move")
    character = forms.TypedChoiceField(
        label=_("Character"),
        coerce=int,
        error_messages={
            "required": _("Choose a character."),
            "invalid_choice": _("Choose one of the characters playing in the session."),
        },
    )
    scene = forms.TypedChoiceField(
        label=_("Move to the scene"),
        coerce=int,
        error_messages={
            "required": _("Choose a scene."),
            "invalid_choice": _("Choose one of the session's open scenes."),
        },
    )

    def __init__(self, *args, characters, scenes, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].choices = [(str(c.pk), c.name) for c in characters]
        self.fields["scene"].choices = _scene_choices(scenes, main=True)

    @property
    def scene_pk(self) -> int | None:
        scene = self.cleaned_data["scene"]
        return None if scene == MAIN else scene


class PostSceneField(forms.TypedChoiceField):
    """The post form's scene, for whoever runs a split session: the main scene or an open
    one (a player's post goes to their character's scene, with no choice)."""

    def __init__(self, scenes, **kwargs):
        super().__init__(
            label=_("Scene"),
            coerce=int,
            choices=_scene_choices(scenes, main=True),
            required=False,
            empty_value=MAIN,
            error_messages={"invalid_choice": _("Choose one of the session's open scenes.")},
            help_text=_("A post narrated as a character goes to that character's scene."),
            **kwargs,
        )
